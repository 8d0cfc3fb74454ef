/**
 * The zod (zod/mini) schemas of every request body and response, for callers who validate or
 * compose with them, with the types they produce. Kept out of the main entry so that importing
 * `omnimedia` does not load zod.
 *
 * schemas/: the wire shapes (zod schemas) and the input and result types; imports only
 * schemas/.
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
