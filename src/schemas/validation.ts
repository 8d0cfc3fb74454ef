// Everything that needs zod at run time, in one module that the SDK loads at its first
// validation (src/schemas/load.ts), never at import.
export { safeParse } from 'zod/mini';
export { parseInput, parseResponse, toValidationIssues } from '../transport/parse-answer.ts';
export { ImageEditBodySchema, ImageGenerateParamsSchema } from './images.ts';
export { TaskResultSchema, TaskSubmissionSchema, VideoTaskSubmissionSchema } from './task.ts';
export { ImageUploadSchema, VideoUploadSchema } from './uploads.ts';
export { VideoEditBodySchema, VideoGenerateBodySchema, videoPromptSchema } from './videos.ts';
