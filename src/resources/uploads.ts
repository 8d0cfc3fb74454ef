import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, multipartBody, prepareFile, type UploadRule, type Uploadable } from '../core/files.ts';
import type { RequestOptions } from '../core/submit.ts';
import { loadValidation, type Validation } from '../core/validation.ts';
import type { ImageUpload, VideoUpload } from '../schemas/uploads.ts';
import { APIResource } from './resource.ts';
import type * as z from 'zod/mini';

/**
 * Options of `uploads.image` and `uploads.video`.
 *
 * @example
 * ```ts
 * const upload = await client.uploads.image(bytes, { filename: 'cover.png', timeout: 120_000 });
 * ```
 */
export interface UploadOptions extends RequestOptions {
  /** The name sent with the file; default: the path's or `File`'s name. */
  filename?: string;
}

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
   * const photo = await client.uploads.image('./photo.jpg');
   * console.log(photo.url, photo.width, photo.height);
   * ```
   */
  image(file: Uploadable, options?: UploadOptions): Promise<ImageUpload> {
    return this.#upload(file, IMAGE_UPLOAD_RULE, 'v1/uploads/images', (v) => v.ImageUploadSchema, options);
  }

  /**
   * Upload a source video for editing (MP4, MOV or WebM, at most 50 MiB). Its `upload_id` is
   * valid for 24 hours.
   *
   * @example
   * ```ts
   * const clip = await client.uploads.video('./clip.mp4');
   * console.log(clip.upload_id);
   * ```
   */
  video(file: Uploadable, options?: UploadOptions): Promise<VideoUpload> {
    return this.#upload(file, VIDEO_UPLOAD_RULE, 'v1/uploads/videos', (v) => v.VideoUploadSchema, options);
  }

  async #upload<S extends z.core.$ZodType>(
    file: Uploadable,
    rule: UploadRule,
    path: string,
    schema: (validation: Validation) => S,
    options: UploadOptions = {},
  ): Promise<z.output<S>> {
    const prepared = await prepareFile(file, rule, options.filename);
    const what = `uploads.${rule.kind}`;
    const body = await this.client.http.request({
      method: 'POST',
      path,
      auth: true,
      retry: 'submission',
      body: () => multipartBody(prepared),
      what,
      signal: options.signal,
      timeout: options.timeout ?? this.client.uploadTimeout,
      maxRetries: options.maxRetries,
    });
    const validation = await loadValidation();
    return validation.parseResponse(schema(validation), body, what);
  }
}
