import * as z from 'zod/mini';
import { nullish } from './lenient.ts';


const record = {
  url: z.string(),
  filename: nullish(z.string()),
  content_type: nullish(z.string()),
  bytes: nullish(z.number()),
  created_at: nullish(z.number()),
  /** Unix seconds; 24 hours after `created_at`. */
  expires_at: nullish(z.number()),
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
export const ImageUploadSchema = z.looseObject({
  ...record,
  width: nullish(z.number()),
  height: nullish(z.number()),
});
/**
 * An uploaded image: its `url` (for edits and video references), size and expiry.
 *
 * @example
 * ```ts
 * const upload: ImageUpload = await client.uploads.image('./photo.png');
 * console.log(upload.url, upload.width, upload.height, new Date((upload.expires_at ?? 0) * 1000));
 * ```
 */
export type ImageUpload = z.infer<typeof ImageUploadSchema>;

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
export const VideoUploadSchema = z.looseObject({
  ...record,
  upload_id: z.string().check(z.minLength(1)),
  url: nullish(z.string()),
});
/**
 * An uploaded video: its `upload_id` (for `videos.edit`) and expiry.
 *
 * @example
 * ```ts
 * const source: VideoUpload = await client.uploads.video('./clip.mp4');
 * await client.videos.edit({ prompt: 'make it snow', input_video: source });
 * ```
 */
export type VideoUpload = z.infer<typeof VideoUploadSchema>;
