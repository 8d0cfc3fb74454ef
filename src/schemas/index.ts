/**
 * The zod (zod/mini) schemas of every request body and response, for callers who validate or
 * compose with them, with the types they produce. They are built from the rules the client
 * runs (the same paths and messages as its `ValidationError`), and kept out of the main entry:
 * the client never loads zod.
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
