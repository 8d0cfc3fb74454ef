// Everything that needs zod at run time, in one module that the SDK loads at its first
// validation of a caller's input (src/validation/load.ts), never at import. Answers of the
// service are read without zod (answers.ts).
export { safeParse } from 'zod/mini';
export { parseInput, toValidationIssues } from './parse.ts';
export { ImageEditBodySchema, ImageGenerateParamsSchema } from '../schemas/images-schema.ts';
export { VideoEditBodySchema, VideoGenerateBodySchema, videoPromptSchema } from '../schemas/videos-schema.ts';
