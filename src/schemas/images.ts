import type { IMAGE_QUALITIES } from './constants.ts';
import type { FileInput } from './file-input.ts';
import type { ImageSize } from './image-size.ts';

export type { ImageSize } from './image-size.ts';

export { IMAGE_QUALITIES } from './constants.ts';
/**
 * The `quality` of an image request: `low`, `medium`, `high` or `auto` (the default).
 *
 * @example
 * ```ts
 * const quality: ImageQuality = 'high';
 * ```
 */
export type ImageQuality = (typeof IMAGE_QUALITIES)[number];

/**
 * Fields shared by image generation and image editing.
 *
 * @example
 * ```ts
 * const options: ImageOptions = { size: '1536x1024', n: 2, quality: 'high' };
 * await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse', ...options });
 * ```
 */
export interface ImageOptions {
  /** `auto` (the default) or `WIDTHxHEIGHT`: sides multiples of 16, longer side ≤ 3840, ratio ≤ 3:1, 655,360–8,294,400 px. */
  size?: ImageSize;
  /** Number of images, 1 to 4. Default 1. */
  n?: 1 | 2 | 3 | 4;
  /** Default `auto`. */
  quality?: ImageQuality;
  /** The service POSTs the finished task here. */
  callback_url?: string;
}

/**
 * Parameters of `client.images.generate`.
 *
 * @example
 * ```ts
 * const params: ImageGenerateParams = { model: 'omni-image', prompt: 'a lighthouse at dawn', size: '1024x1024' };
 * const task = await client.images.generate(params).wait();
 * ```
 */
export interface ImageGenerateParams extends ImageOptions {
  /** The image model, e.g. `omni-image` (the service's list; any string is sent). */
  model: string;
  /** At most 4,000 characters (code points). */
  prompt: string;
}

/**
 * The JSON body `images.edit` sends, once every image is an uploaded URL.
 *
 * @example
 * ```ts
 * const body: ImageEditBody = { model: 'omni-image', prompt: 'make it night', image: [upload.url] };
 * ```
 */
export interface ImageEditBody extends ImageOptions {
  /** The image model. */
  model: string;
  /** The editing instruction. */
  prompt: string;
  /** Upload URL(s). */
  image: string | string[];
  /** An upload URL. */
  mask?: string;
}

/**
 * An image for an edit: an upload URL, the record `uploads.image` returned, or a file object
 * (`fileFromPath(...)`, `Blob`/`File`, bytes, a stream, a `Response`) that is uploaded first.
 * A string is always a URL, never a path: use `fileFromPath` for a file on disk.
 *
 * @example
 * ```ts
 * const upload = await client.uploads.image('./photo.png');
 * const refs: ImageReference[] = [upload, 'https://files.example.com/u/abc.png'];
 * ```
 */
export type ImageReference =
  | string
  | {
      /** The upload URL. */
      url: string;
      /** When it expires, Unix seconds: an expired upload is refused locally. */
      expires_at?: number | undefined;
    }
  | FileInput;

/**
 * Parameters of `client.images.edit`.
 *
 * @example
 * ```ts
 * const photo = await client.uploads.image('./photo.png');
 * const params: ImageEditParams = { model: 'omni-image', prompt: 'make it night', image: photo };
 * const task = await client.images.edit(params).wait();
 * ```
 */
export interface ImageEditParams extends ImageOptions {
  /** The image model, e.g. `omni-image`. */
  model: string;
  /** The editing instruction; at most 4,000 characters (code points). */
  prompt: string;
  /** One image or several (multi-image editing): upload URLs, upload records or files to upload. */
  image: ImageReference | ImageReference[];
  /** A mask image: an upload URL, upload record or file to upload. */
  mask?: ImageReference;
}
