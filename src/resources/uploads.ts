import type { ValidationError } from '../errors.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, prepareFile, type PreparedFile, type Uploadable } from '../uploads/inputs.ts';
import type { RequestOptions } from './submission.ts';
import { uploadCacheKey } from '../uploads/cache.ts';
import { attemptBody, multipartFraming, type Framing, type TransferProgress } from '../uploads/body.ts';
import { loadValidation } from '../schemas/load.ts';
import type { ImageUpload, VideoUpload } from '../schemas/uploads.ts';
import { APIResource } from './resource.ts';

/**
 * Options of `uploads.image` and `uploads.video`.
 *
 * @example
 * ```ts
 * const upload = await client.uploads.image(bytes, { filename: 'cover.png', timeout: 120_000 });
 * ```
 */
export interface UploadOptions extends RequestOptions {
  /** The name sent with the file; default: the path's or `File`'s name, else `upload.<ext>`. */
  filename?: string;
  /** Called as the file's bytes go out: `loaded` of `total` (`undefined` for a stream of unknown size). */
  onProgress?: (progress: TransferProgress) => void;
}

const ENDPOINT = { image: 'v1/uploads/images', video: 'v1/uploads/videos' } as const;

/**
 * `POST /v1/uploads/images` and `POST /v1/uploads/videos`. Uploads are not billed.
 *
 * @example
 * ```ts
 * const image = await client.uploads.image('./photo.png');
 * const video = await client.uploads.video('./clip.mp4');
 * console.log(image.url, video.upload_id);
 * ```
 */
export class Uploads extends APIResource {
  /**
   * Upload a reference image (PNG, JPEG or WebP, at most 25 MiB). The type is read from the
   * file's first bytes; a wrong type or size fails before any byte is sent. The returned `url`
   * is valid for 24 hours.
   *
   * @example
   * ```ts
   * const photo = await client.uploads.image('./photo.jpg', {
   *   onProgress: ({ loaded, total }) => console.log(`${loaded}/${total}`),
   * });
   * console.log(photo.url, photo.width, photo.height);
   * ```
   */
  async image(file: Uploadable, options: UploadOptions = {}): Promise<ImageUpload> {
    return this.send(await prepareFile(file, IMAGE_UPLOAD_RULE, options), options) as Promise<ImageUpload>;
  }

  /**
   * Upload a source video for editing (MP4, MOV or WebM, at most 50 MiB). Its `upload_id` is
   * valid for 24 hours. From a path or a Blob the file is streamed from disk, never loaded.
   *
   * @example
   * ```ts
   * const clip = await client.uploads.video('./clip.mp4');
   * console.log(clip.upload_id);
   * ```
   */
  async video(file: Uploadable, options: UploadOptions = {}): Promise<VideoUpload> {
    return this.send(await prepareFile(file, VIDEO_UPLOAD_RULE, options), options) as Promise<VideoUpload>;
  }

  /**
   * @internal Send a file `prepareFile` already checked, through the client's upload cache
   * when one is on (replayable files only: a one-shot stream cannot be hashed and then sent).
   */
  async send(file: PreparedFile, options: UploadOptions = {}): Promise<ImageUpload | VideoUpload> {
    const cache = this.client.uploadCache;
    if (!cache || !file.source.replayable) return this.#post(file, options);
    const key = await uploadCacheKey(file as PreparedFile & { source: { replayable: true } });
    const { record, cached } = await cache.getOrUpload(key, () => this.#post(file, options));
    if (cached) {
      this.client.logger.debug(`uploads.${file.rule.kind}: reused the upload of the same bytes (${key})`);
      options.onProgress?.({ loaded: file.source.size, total: file.source.size });
    }
    return record;
  }

  async #post(file: PreparedFile, options: UploadOptions): Promise<ImageUpload | VideoUpload> {
    const { rule } = file;
    const what = `uploads.${rule.kind}`;
    let tooLarge: ValidationError | undefined;
    let framing: Promise<Framing> | undefined;
    let counted = true;
    try {
      const v = await loadValidation();
      const record = await this.client.http.request({
        method: 'POST',
        path: ENDPOINT[rule.kind],
        auth: true,
        // Uploads are not billed (spec 4.2): a duplicate costs nothing, so any transient
        // failure is retried, a connection reset after sending included.
        retry: 'idempotent',
        body: async () => {
          const attempt = await attemptBody(file, () => (framing ??= multipartFraming(file.filename, file.type.mediaType)), {
            onProgress: options.onProgress,
            onTooLarge: (error) => (tooLarge = error),
          });
          counted = attempt.counted;
          return attempt;
        },
        parse: (body, meta): ImageUpload | VideoUpload =>
          v.parseResponse(rule.kind === 'image' ? v.ImageUploadSchema : v.VideoUploadSchema, body, what, meta),
        what,
        signal: options.signal,
        timeout: options.timeout ?? this.client.uploadTimeout,
        // A one-shot stream is spent by the first attempt: it cannot be sent again.
        maxRetries: file.source.replayable ? options.maxRetries : 0,
      });
      if (!counted) {
        const size = file.source.size ?? Number(record.bytes ?? 0);
        options.onProgress?.({ loaded: size, total: size });
      }
      return record;
    } catch (error) {
      // The stream passed the limit: fetch saw its body fail; the caller should see why.
      throw tooLarge ?? error;
    }
  }
}
