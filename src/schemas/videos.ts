import type {
  ASPECT_RATIOS,
  IMAGE_TO_VIDEO_MODEL,
  TEXT_TO_VIDEO_MODEL,
  VIDEO_EDIT_MODEL,
  VIDEO_RESOLUTIONS,
  VIDEO_SECONDS,
} from './constants.ts';
import type { FileInput } from './file-input.ts';

export {
  ASPECT_RATIOS,
  IMAGE_TO_VIDEO_MODEL,
  MAX_REFERENCE_IMAGES,
  TEXT_TO_VIDEO_MODEL,
  VIDEO_EDIT_MODEL,
  VIDEO_RESOLUTIONS,
  VIDEO_SECONDS,
} from './constants.ts';

/**
 * Video length in seconds: 4, 6, 8 or 10 (default 10). Sent as a string, as the spec asks.
 *
 * @example
 * ```ts
 * const seconds: VideoSeconds = 8; // or '8'
 * await client.videos.generate({ prompt: 'a fox', seconds });
 * ```
 */
export type VideoSeconds = 4 | 6 | 8 | 10 | (typeof VIDEO_SECONDS)[number];
/**
 * Default `720p`.
 *
 * @example
 * ```ts
 * await client.videos.generate({ prompt: 'a fox', resolution: '1080p' });
 * ```
 */
export type VideoResolution = (typeof VIDEO_RESOLUTIONS)[number];
/**
 * `16:9` (landscape) or `9:16` (portrait).
 *
 * @example
 * ```ts
 * await client.videos.generate({ prompt: 'a fox', aspect_ratio: '9:16' });
 * ```
 */
export type AspectRatio = (typeof ASPECT_RATIOS)[number];


/**
 * A video generation model: `omni_flash` (text to video), `omni_flash_components` (image to video), or another the service offers.
 *
 * @example
 * ```ts
 * const model: VideoGenerateModel = 'omni_flash_components'; // image to video
 * ```
 */
export type VideoGenerateModel = typeof TEXT_TO_VIDEO_MODEL | typeof IMAGE_TO_VIDEO_MODEL | (string & {});
/**
 * A video editing model: `omni_flash_edit` (the default) or another the service offers.
 *
 * @example
 * ```ts
 * await client.videos.edit({ model: 'omni_flash_edit', prompt: 'make it snow', input_video: source });
 * ```
 */
export type VideoEditModel = typeof VIDEO_EDIT_MODEL | (string & {});

/**
 * A part of a chat message: the prompt text, or a reference image by its upload URL.
 *
 * @example
 * ```ts
 * const parts: VideoContentPart[] = [
 *   { type: 'image_url', image_url: { url: upload.url } },
 *   { type: 'text', text: 'the boat drifts away' },
 * ];
 * ```
 */
export type VideoContentPart =
  | {
      /** A text part. */
      type: 'text';
      /** The prompt text. */
      text: string;
    }
  | {
      /** An image part. */
      type: 'image_url';
      /** The reference image, by its upload URL. */
      image_url: { url: string };
    };

/**
 * A chat-format message, as the spec writes it.
 *
 * @example
 * ```ts
 * const messages: VideoMessage[] = [{ role: 'user', content: 'a paper boat on a river' }];
 * await client.videos.generate({ model: 'omni_flash', messages });
 * ```
 */
export interface VideoMessage {
  /** Who speaks: `user` for the prompt; the spec's examples use only `user`. */
  role: 'user' | 'system' | 'assistant' | (string & {});
  /** The prompt as a string, or text and image parts. */
  content: string | VideoContentPart[];
}

/**
 * A reference image: an upload URL, the record `uploads.image` returned, or a file object
 * (`fileFromPath(...)`, `Blob`/`File`, bytes, a stream, a `Response`) that is uploaded first.
 *
 * @example
 * ```ts
 * const images: VideoImageReference[] = [await client.uploads.image('./first-frame.png')];
 * await client.videos.generate({ prompt: 'it starts to rain', images });
 * ```
 */
export type VideoImageReference =
  | string
  | {
      /** The upload URL. */
      url: string;
      /** When it expires, Unix seconds: an expired upload is refused locally. */
      expires_at?: number | undefined;
    }
  | FileInput;

interface VideoOptions {
  /** `16:9` or `9:16`. */
  aspect_ratio?: AspectRatio;
  /** `720p` (default), `1080p` or `4K`. */
  resolution?: VideoResolution;
  /** The service POSTs the finished task here. */
  callback_url?: string;
}

/**
 * `{ prompt, images? }`: the SDK builds the `messages` array.
 *
 * @example
 * ```ts
 * const params: VideoGeneratePromptParams = { prompt: 'a fox in the snow', seconds: 6, resolution: '1080p' };
 * const video = await client.videos.generate(params).wait();
 * ```
 */
export interface VideoGeneratePromptParams extends VideoOptions {
  /** Default: `omni_flash` for text only, `omni_flash_components` when `images` are given. */
  model?: VideoGenerateModel;
  /** What the video shows; at most 4,000 characters (code points). */
  prompt: string;
  /** Up to 3 reference images (image to video). */
  images?: VideoImageReference[];
  /** 4, 6, 8 or 10 (or the same as strings). Default 10. */
  seconds?: VideoSeconds;
  /** Not with `prompt`: give one or the other. */
  messages?: never;
}

/**
 * Raw chat-format `messages`, exactly as the spec writes them.
 *
 * @example
 * ```ts
 * const params: VideoGenerateMessagesParams = {
 *   model: 'omni_flash',
 *   messages: [{ role: 'user', content: 'a fox in the snow' }],
 * };
 * await client.videos.generate(params);
 * ```
 */
export interface VideoGenerateMessagesParams extends VideoOptions {
  /** Required with raw messages: `omni_flash` (text) or `omni_flash_components` (with image parts). */
  model: VideoGenerateModel;
  /** The chat messages, sent as they are. */
  messages: VideoMessage[];
  /** 4, 6, 8 or 10 (or the same as strings). Default 10. */
  seconds?: VideoSeconds;
  /** Not with `messages`: the prompt is in them. */
  prompt?: never;
  /** Not with `messages`: give images as `image_url` parts. */
  images?: never;
}

/**
 * Parameters of `client.videos.generate`: a prompt (and images), or raw messages.
 *
 * @example
 * ```ts
 * const params: VideoGenerateParams = { prompt: 'a paper boat on a river', seconds: 8 };
 * const video = await client.videos.generate(params).wait();
 * ```
 */
export type VideoGenerateParams = VideoGeneratePromptParams | VideoGenerateMessagesParams;

/**
 * The source video: its `upload_id`, the `{ upload_id }` object, the record `uploads.video`
 * returned, or a file object (`fileFromPath(...)`, `Blob`, bytes, a stream) uploaded first.
 *
 * @example
 * ```ts
 * const source = await client.uploads.video('./clip.mp4');
 * const ref: VideoReference = source; // or source.upload_id
 * await client.videos.edit({ prompt: 'make it snow', input_video: ref });
 * ```
 */
export type VideoReference =
  | string
  | {
      /** The id `uploads.video` returned. */
      upload_id: string;
      /** When it expires, Unix seconds: an expired upload is refused locally. */
      expires_at?: number | undefined;
    }
  | FileInput;

interface VideoEditOptions extends VideoOptions {
  /** Default `omni_flash_edit`. */
  model?: VideoEditModel;
  /** The video to edit: an upload id, upload record or file to upload. */
  input_video: VideoReference;
  /** Video edits take no `seconds`: the length follows the source video. */
  seconds?: never;
}

/**
 * Parameters of `client.videos.edit`: the instruction as a prompt or as raw messages.
 *
 * @example
 * ```ts
 * const params: VideoEditParams = { prompt: 'make it snow', input_video: source, resolution: '1080p' };
 * const edited = await client.videos.edit(params).wait();
 * ```
 */
export type VideoEditParams =
  | (VideoEditOptions & {
      /** The editing instruction; at most 4,000 characters (code points). */
      prompt: string;
      /** Not with `prompt`: give one or the other. */
      messages?: never;
    })
  | (VideoEditOptions & {
      /** The instruction as chat messages, sent as they are. */
      messages: VideoMessage[];
      /** Not with `messages`: the instruction is in them. */
      prompt?: never;
    });

/**
 * The JSON body `videos.generate` sends.
 *
 * @example
 * ```ts
 * const body: VideoGenerateBody = { model: 'omni_flash', messages: [{ role: 'user', content: 'a fox' }], seconds: '8' };
 * ```
 */
export interface VideoGenerateBody extends VideoOptions {
  /** The video model. */
  model: string;
  /** The chat messages. */
  messages: VideoMessage[];
  /** Sent as a string. */
  seconds?: (typeof VIDEO_SECONDS)[number];
}

/**
 * The JSON body `videos.edit` sends.
 *
 * @example
 * ```ts
 * const body: VideoEditBody = { model: 'omni_flash_edit', messages: [{ role: 'user', content: 'snow' }], input_video: { upload_id: 'up_1' } };
 * ```
 */
export interface VideoEditBody extends VideoOptions {
  /** The video edit model. */
  model: string;
  /** The instruction as chat messages. */
  messages: VideoMessage[];
  /** The source video's upload id. */
  input_video: { upload_id: string };
}
