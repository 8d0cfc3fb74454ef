import * as z from 'zod/mini';
import type { FileInput } from '../core/auto-upload.ts';
import { callbackUrlSchema, enumSchema, modelSchema, mustBe, oneOf, promptSchema } from './fields.ts';

export const VIDEO_SECONDS = ['4', '6', '8', '10'] as const;
export const VIDEO_RESOLUTIONS = ['720p', '1080p', '4K'] as const;
export const ASPECT_RATIOS = ['16:9', '9:16'] as const;
export const MAX_REFERENCE_IMAGES = 3;

/** Video length in seconds: 4, 6, 8 or 10 (default 10). Sent as a string, as the spec asks. */
export type VideoSeconds = 4 | 6 | 8 | 10 | (typeof VIDEO_SECONDS)[number];
/** Default `720p`. */
export type VideoResolution = (typeof VIDEO_RESOLUTIONS)[number];
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** Text to video. */
export const TEXT_TO_VIDEO_MODEL = 'omni_flash';
/** Image to video. */
export const IMAGE_TO_VIDEO_MODEL = 'omni_flash_components';
/** Video editing. */
export const VIDEO_EDIT_MODEL = 'omni_flash_edit';

export type VideoGenerateModel = typeof TEXT_TO_VIDEO_MODEL | typeof IMAGE_TO_VIDEO_MODEL | (string & {});
export type VideoEditModel = typeof VIDEO_EDIT_MODEL | (string & {});

/** A part of a chat message: the prompt text, or a reference image by its upload URL. */
export type VideoContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** A chat-format message, as the spec writes it. */
export interface VideoMessage {
  role: 'user' | 'system' | 'assistant' | (string & {});
  content: string | VideoContentPart[];
}

/**
 * A reference image: an upload URL, the record `uploads.image` returned, or a file object
 * (`fileFromPath(...)`, `Blob`/`File`, bytes, a stream, a `Response`) that is uploaded first.
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

/** `{ prompt, images? }`: the SDK builds the `messages` array. */
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

/** Raw chat-format `messages`, exactly as the spec writes them. */
export interface VideoGenerateMessagesParams extends VideoOptions {
  model: VideoGenerateModel;
  messages: VideoMessage[];
  /** 4, 6, 8 or 10 (or the same as strings). Default 10. */
  seconds?: VideoSeconds;
  prompt?: never;
  images?: never;
}

/** Parameters of `client.videos.generate`: a prompt (and images), or raw messages. */
export type VideoGenerateParams = VideoGeneratePromptParams | VideoGenerateMessagesParams;

/**
 * The source video: its `upload_id`, the `{ upload_id }` object, the record `uploads.video`
 * returned, or a file object (`fileFromPath(...)`, `Blob`, bytes, a stream) uploaded first.
 */
export type VideoReference = string | { upload_id: string; expires_at?: number | null | undefined } | FileInput;

interface VideoEditOptions extends VideoOptions {
  /** Default `omni_flash_edit`. */
  model?: VideoEditModel;
  input_video: VideoReference;
  /** Video edits take no `seconds`: the length follows the source video. */
  seconds?: never;
}

/** Parameters of `client.videos.edit`: the instruction as a prompt or as raw messages. */
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

/** The JSON body of `POST /v1/video/generate`. Unknown fields pass through. */
export const VideoGenerateBodySchema = z.looseObject({
  model: modelSchema,
  messages: messagesSchema,
  seconds: z.optional(secondsSchema),
  ...videoOptionsShape,
});
export type VideoGenerateBody = z.infer<typeof VideoGenerateBodySchema>;

/** The JSON body of `POST /v1/video/edits`. It has no `seconds`. */
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
export type VideoEditBody = z.infer<typeof VideoEditBodySchema>;

/** The prompt of the `{ prompt }` form, checked before the messages are built. */
export const videoPromptSchema = promptSchema();
