/** The types of the upload records (spec 2.2, 2.3); their zod schemas are in uploads-schema.ts. */

/** What both upload records carry (spec 2.2, 2.3). */
interface UploadRecord {
  /** The file's name as the service stored it. */
  filename?: string;
  /** e.g. an image or video media type. */
  content_type?: string;
  /** The file's size in bytes. */
  bytes?: number;
  /** Unix seconds. */
  created_at?: number;
  /** Unix seconds; 24 hours after `created_at`. */
  expires_at?: number;
}

/**
 * An uploaded image: its `url` (for edits and video references), size and expiry.
 *
 * @example
 * ```ts
 * const upload: ImageUpload = await client.uploads.image('./photo.png');
 * console.log(upload.url, upload.width, upload.height, new Date((upload.expires_at ?? 0) * 1000));
 * ```
 */
export interface ImageUpload extends UploadRecord {
  /** A reusable address on the upload host, valid 24 hours. */
  url: string;
  /** Pixels across, as the service measured the image. */
  width?: number;
  /** Pixels down. */
  height?: number;
}

/**
 * An uploaded video: its `upload_id` (for `videos.edit`) and expiry.
 *
 * @example
 * ```ts
 * const source: VideoUpload = await client.uploads.video('./clip.mp4');
 * await client.videos.edit({ prompt: 'make it snow', input_video: source });
 * ```
 */
export interface VideoUpload extends UploadRecord {
  /** The id `videos.edit` takes in `input_video`, valid 24 hours. */
  upload_id: string;
  /** Its address on the upload host. */
  url?: string;
}
