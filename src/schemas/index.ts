/**
 * The zod (zod/mini) schemas of every request body and response, for callers who validate or
 * compose with them. Kept out of the main entry so that importing `omnimedia` does not load zod.
 *
 * @module omnimedia/schemas
 */
export * from './images.ts';
export * from './task.ts';
export * from './uploads.ts';
export * from './videos.ts';
