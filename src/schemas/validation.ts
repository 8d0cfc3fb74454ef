// Everything that needs zod at run time, in one module that the SDK loads at its first
// validation (src/core/validation.ts), never at import.
export { safeParse } from 'zod/mini';
export { parseInput, parseResponse, toValidationIssues } from '../core/parse.ts';
export { ImageEditBodySchema, ImageGenerateParamsSchema } from './images.ts';
export { TaskResultSchema, TaskSubmissionSchema, VideoTaskSubmissionSchema } from './task.ts';
export { ImageUploadSchema, VideoUploadSchema } from './uploads.ts';
export { VideoEditBodySchema, VideoGenerateBodySchema, videoPromptSchema } from './videos.ts';
