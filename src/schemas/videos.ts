import * as z from 'zod/mini';
import type { FileInput } from './file-input.ts';
import {
  ASPECT_RATIOS,
  IMAGE_TO_VIDEO_MODEL,
  MAX_REFERENCE_IMAGES,
  TEXT_TO_VIDEO_MODEL,
  VIDEO_EDIT_MODEL,
  VIDEO_RESOLUTIONS,
  VIDEO_SECONDS,
} from './constants.ts';
import { callbackUrlSchema, enumSchema, modelSchema, mustBe, oneOf, promptSchema } from './fields.ts';

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
export type VideoContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

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
  role: 'user' | 'system' | 'assistant' | (string & {});
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
export type VideoImageReference = string | { url: string; expires_at?: number | null | undefined } | FileInput;

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
  prompt: string;
  /** Up to 3 reference images (image to video). */
  images?: VideoImageReference[];
  /** 4, 6, 8 or 10 (or the same as strings). Default 10. */
  seconds?: VideoSeconds;
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
  model: VideoGenerateModel;
  messages: VideoMessage[];
  /** 4, 6, 8 or 10 (or the same as strings). Default 10. */
  seconds?: VideoSeconds;
  prompt?: never;
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
export type VideoReference = string | { upload_id: string; expires_at?: number | null | undefined } | FileInput;

interface VideoEditOptions extends VideoOptions {
  /** Default `omni_flash_edit`. */
  model?: VideoEditModel;
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
  | (VideoEditOptions & { prompt: string; messages?: never })
  | (VideoEditOptions & { messages: VideoMessage[]; prompt?: never });

const contentPartSchema = z.union(
  [
    z.looseObject({ type: z.literal('text'), text: z.string(mustBe('a string')) }),
    z.looseObject({
      type: z.literal('image_url'),
      image_url: z.looseObject({ url: z.string(mustBe('an uploaded image URL')).check(z.minLength(1)) }),
    }),
  ],
  mustBe('a {type: "text", text} or {type: "image_url", image_url: {url}} part'),
);

/**
 * One chat-format message of a video request.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { VideoMessageSchema } from 'omnimedia/schemas';
 * const message = z.parse(VideoMessageSchema, { role: 'user', content: 'a fox' });
 * ```
 */
export const VideoMessageSchema = z.looseObject({
  role: z.string(mustBe('a string such as "user"')),
  content: z.union([z.string(), z.array(contentPartSchema)], mustBe('a string or a list of content parts')),
});

const messagesSchema = z.array(VideoMessageSchema, mustBe('a list of chat messages')).check(
  z.minLength(1, 'must hold at least one message'),
  z.superRefine((messages, ctx) => {
    const images = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url');
    if (images.length > MAX_REFERENCE_IMAGES)
      ctx.issues.push({
        code: 'custom',
        input: messages,
        message: `may reference at most ${MAX_REFERENCE_IMAGES} images (got ${images.length})`,
      });
  }),
);

const secondsSchema = z.pipe(
  z.union([z.literal([4, 6, 8, 10]), z.enum(VIDEO_SECONDS)], mustBe(`one of ${oneOf([4, 6, 8, 10])}`)),
  z.transform((value) => String(value) as (typeof VIDEO_SECONDS)[number]),
);

const videoOptionsShape = {
  aspect_ratio: z.optional(enumSchema(ASPECT_RATIOS)),
  resolution: z.optional(enumSchema(VIDEO_RESOLUTIONS)),
  callback_url: z.optional(callbackUrlSchema),
};

/**
 * The JSON body of `POST /v1/video/generate`. Unknown fields pass through.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { VideoGenerateBodySchema } from 'omnimedia/schemas';
 * const body = z.parse(VideoGenerateBodySchema, { model: 'omni_flash', messages: [{ role: 'user', content: 'a fox' }], seconds: 8 });
 * body.seconds; // '8': sent as a string
 * ```
 */
export const VideoGenerateBodySchema = z.looseObject({
  model: modelSchema,
  messages: messagesSchema,
  seconds: z.optional(secondsSchema),
  ...videoOptionsShape,
});
/**
 * The JSON body `videos.generate` sends.
 *
 * @example
 * ```ts
 * const body: VideoGenerateBody = { model: 'omni_flash', messages: [{ role: 'user', content: 'a fox' }], seconds: '8' };
 * ```
 */
export type VideoGenerateBody = z.infer<typeof VideoGenerateBodySchema>;

/**
 * The JSON body of `POST /v1/video/edits`. It has no `seconds`.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { VideoEditBodySchema } from 'omnimedia/schemas';
 * const result = z.safeParse(VideoEditBodySchema, { model: 'omni_flash_edit', messages, input_video: { upload_id } });
 * ```
 */
export const VideoEditBodySchema = z.looseObject({
  model: modelSchema,
  messages: messagesSchema,
  input_video: z.looseObject(
    { upload_id: z.string(mustBe('a video upload id')).check(z.minLength(1, 'must not be empty')) },
    mustBe('{upload_id} from uploads.video'),
  ),
  seconds: z.optional(z.never('video edits take no seconds: the length follows the source video')),
  ...videoOptionsShape,
});
/**
 * The JSON body `videos.edit` sends.
 *
 * @example
 * ```ts
 * const body: VideoEditBody = { model: 'omni_flash_edit', messages: [{ role: 'user', content: 'snow' }], input_video: { upload_id: 'up_1' } };
 * ```
 */
export type VideoEditBody = z.infer<typeof VideoEditBodySchema>;

/** @internal The prompt of the `{ prompt }` form, checked before the messages are built. */
export const videoPromptSchema = promptSchema();
