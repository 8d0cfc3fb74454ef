// Everything that needs zod at run time, in one module that the SDK loads at its first
// validation (src/validation/load.ts), never at import.
export { safeParse } from 'zod/mini';
export { parseInput, parseResponse, toValidationIssues } from './parse.ts';
export { TaskResultSchema } from './task-bundle.ts';
export { ImageEditBodySchema, ImageGenerateParamsSchema } from '../schemas/images-schema.ts';
export { TaskSubmissionSchema, VideoTaskSubmissionSchema } from '../schemas/task-schema.ts';
export { ImageUploadSchema, VideoUploadSchema } from '../schemas/uploads-schema.ts';
export { VideoEditBodySchema, VideoGenerateBodySchema, videoPromptSchema } from '../schemas/videos-schema.ts';
