import * as z from 'zod/mini';
import { answerObject } from './lenient.ts';
import type { ImageUpload, VideoUpload } from './uploads.ts';

const record = {
  filename: z.string(),
  content_type: z.string(),
  bytes: z.number(),
  created_at: z.number(),
  expires_at: z.number(),
};

/**
 * The record `POST /v1/uploads/images` returns. Its `url` goes into edits and video references.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { ImageUploadSchema } from 'omnimedia/schemas';
 * const upload = z.parse(ImageUploadSchema, saved); // a record you stored earlier
 * ```
 */
export const ImageUploadSchema: z.ZodMiniType<ImageUpload> = answerObject({ url: z.string() }, { ...record, width: z.number(), height: z.number() });

/**
 * The record `POST /v1/uploads/videos` returns. Its `upload_id` goes into `videos.edit`.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { VideoUploadSchema } from 'omnimedia/schemas';
 * const upload = z.parse(VideoUploadSchema, saved); // a record you stored earlier
 * ```
 */
export const VideoUploadSchema: z.ZodMiniType<VideoUpload> = answerObject({ upload_id: z.string().check(z.minLength(1)) }, { ...record, url: z.string() });
