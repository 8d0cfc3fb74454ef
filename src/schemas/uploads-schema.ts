import type * as z from 'zod/mini';
import { IMAGE_UPLOAD_ANSWER, VIDEO_UPLOAD_ANSWER } from './answers.ts';
import { answerSchema } from './lenient.ts';
import type { ImageUpload, VideoUpload } from './uploads.ts';

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
export const ImageUploadSchema: z.ZodMiniType<ImageUpload> = answerSchema(IMAGE_UPLOAD_ANSWER);

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
export const VideoUploadSchema: z.ZodMiniType<VideoUpload> = answerSchema(VIDEO_UPLOAD_ANSWER);
