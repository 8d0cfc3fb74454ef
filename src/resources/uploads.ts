import { ValidationError } from '../errors.ts';
import { checkRequestOptions } from '../option-checks.ts';
import { readCallerInput } from '../validation/caller-input.ts';
import type { UploadOptions } from '../options.ts';
import type { Uploadable } from '../schemas/file-input.ts';
import type { ImageUpload, VideoUpload } from '../schemas/uploads.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, prepareFile, type UploadRule } from '../uploads/inputs.ts';
import type { Uploader } from '../uploads/send.ts';

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
export class Uploads {
  readonly #send: Uploader;

  /** @internal */
  constructor(context: { upload: Uploader }) {
    this.#send = context.upload;
  }

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
  async image(file: Uploadable, options?: UploadOptions): Promise<ImageUpload> {
    return this.#upload(file, IMAGE_UPLOAD_RULE, 'uploads.image', options) as Promise<ImageUpload>;
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
  async video(file: Uploadable, options?: UploadOptions): Promise<VideoUpload> {
    return this.#upload(file, VIDEO_UPLOAD_RULE, 'uploads.video', options) as Promise<VideoUpload>;
  }

  async #upload(file: Uploadable, rule: UploadRule, what: string, options: UploadOptions | undefined): Promise<ImageUpload | VideoUpload> {
    const read = checkRequestOptions(options, what);
    if (read.filename !== undefined && (typeof read.filename !== 'string' || read.filename === ''))
      throw new ValidationError([{ path: 'filename', message: 'must be a non-empty string' }], `${what} options`);
    return this.#send(await prepareFile(readCallerInput(file, `${what} file`, 'value'), rule, read), read);
  }
}
