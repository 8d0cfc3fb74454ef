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

/** The record `POST /v1/uploads/images` returns. Its `url` goes into edits and video references. */
export const ImageUploadSchema = z.looseObject({
  ...record,
  width: nullish(z.number()),
  height: nullish(z.number()),
});
export type ImageUpload = z.infer<typeof ImageUploadSchema>;

/** The record `POST /v1/uploads/videos` returns. Its `upload_id` goes into `videos.edit`. */
export const VideoUploadSchema = z.looseObject({
  ...record,
  upload_id: z.string().check(z.minLength(1)),
  url: nullish(z.string()),
});
export type VideoUpload = z.infer<typeof VideoUploadSchema>;
