// The values of the public enums, free of zod: omnimedia/schemas exports them, and the client
// checks requests with them without loading zod (only omnimedia/schemas does).

/**
 * The `quality` values of an image request.
 *
 * @example
 * ```ts
 * import { IMAGE_QUALITIES } from 'omnimedia/schemas';
 * IMAGE_QUALITIES.includes('high'); // true
 * ```
 */
export const IMAGE_QUALITIES = ['low', 'medium', 'high', 'auto'] as const;

/**
 * The video lengths the service renders, in seconds, as the strings it takes.
 *
 * @example
 * ```ts
 * import { VIDEO_SECONDS } from 'omnimedia/schemas';
 * const options = VIDEO_SECONDS.map(Number); // [4, 6, 8, 10]
 * ```
 */
export const VIDEO_SECONDS = ['4', '6', '8', '10'] as const;

/**
 * The `resolution` values of a video request.
 *
 * @example
 * ```ts
 * import { VIDEO_RESOLUTIONS } from 'omnimedia/schemas';
 * for (const resolution of VIDEO_RESOLUTIONS) console.log(resolution); // 720p, 1080p, 4K
 * ```
 */
export const VIDEO_RESOLUTIONS = ['720p', '1080p', '4K'] as const;

/**
 * The `aspect_ratio` values of a video request.
 *
 * @example
 * ```ts
 * import { ASPECT_RATIOS } from 'omnimedia/schemas';
 * const portrait = ASPECT_RATIOS[1]; // '9:16'
 * ```
 */
export const ASPECT_RATIOS = ['16:9', '9:16'] as const;

// Limits the rules check and the agents' tool schemas state (not exported by an entry).

/** An image request's prompt, at most this many characters (code points). */
export const MAX_IMAGE_PROMPT_LENGTH = 4000;

/** `n`, the images one request makes: 1 to this many. */
export const MAX_IMAGES_PER_REQUEST = 4;

/**
 * How many reference images a video generation may carry.
 *
 * @example
 * ```ts
 * import { MAX_REFERENCE_IMAGES } from 'omnimedia/schemas';
 * const images = picked.slice(0, MAX_REFERENCE_IMAGES);
 * ```
 */
export const MAX_REFERENCE_IMAGES = 3;

/**
 * The text-to-video model, the default of `videos.generate` without images.
 *
 * @example
 * ```ts
 * import { TEXT_TO_VIDEO_MODEL } from 'omnimedia/schemas';
 * await client.videos.generate({ model: TEXT_TO_VIDEO_MODEL, prompt: 'a fox in the snow' });
 * ```
 */
export const TEXT_TO_VIDEO_MODEL = 'omni_flash';

/**
 * The image-to-video model, the default of `videos.generate` with `images`.
 *
 * @example
 * ```ts
 * import { IMAGE_TO_VIDEO_MODEL } from 'omnimedia/schemas';
 * await client.videos.generate({ model: IMAGE_TO_VIDEO_MODEL, prompt: 'it starts to rain', images: [upload] });
 * ```
 */
export const IMAGE_TO_VIDEO_MODEL = 'omni_flash_components';

/**
 * The video editing model, the default of `videos.edit`.
 *
 * @example
 * ```ts
 * import { VIDEO_EDIT_MODEL } from 'omnimedia/schemas';
 * await client.videos.edit({ model: VIDEO_EDIT_MODEL, prompt: 'make it snow', input_video: source });
 * ```
 */
export const VIDEO_EDIT_MODEL = 'omni_flash_edit';
