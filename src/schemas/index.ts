/**
 * The zod (zod/mini) schemas of every request body and response, for callers who validate or
 * compose with them, with the types they produce. They are built from the rules the client
 * runs (the same paths and messages as its `ValidationError`), and kept out of the main entry:
 * the client never loads zod. With them: the spec's constants (`VIDEO_SECONDS`,
 * `MAX_REFERENCE_IMAGES`...), `sniffMediaType` (a file's type from its first bytes),
 * `imageSizeProblem` (the spec's rule for `size`) and `rawAnswer` (an answer as the service
 * sent it).
 *
 * @example
 * ```ts
 * import { imageSizeProblem, ImageGenerateParamsSchema, sniffMediaType } from 'omnimedia/schemas';
 *
 * console.log(imageSizeProblem('1000x1000')); // why the service would refuse it
 * const params = ImageGenerateParamsSchema.parse(JSON.parse(body));
 * const type = sniffMediaType(new Uint8Array(await file.slice(0, 64).arrayBuffer()));
 * ```
 *
 * schemas/: the request rules (plain checks), the answer shapes, the input and result types,
 * and the zod schemas built from them (only this entry imports zod); imports only schemas/.
 *
 * @module omnimedia/schemas
 */
export * from './images.ts';
export * from './images-schema.ts';
export * from './task.ts';
export * from './task-schema.ts';
export * from './uploads.ts';
export * from './uploads-schema.ts';
export * from './videos.ts';
export * from './videos-schema.ts';
export { imageSizeProblem } from './image-size.ts';
export { sniffMediaType, type SniffedType } from './sniff.ts';
export { rawAnswer } from './tolerant.ts';
