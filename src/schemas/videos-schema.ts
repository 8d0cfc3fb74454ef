import type * as z from 'zod/mini';
import { objectSchema } from './rule-schema.ts';
import { VIDEO_EDIT_RULE, VIDEO_GENERATE_RULE, VIDEO_MESSAGE_RULE } from './video-rules.ts';
import type { AspectRatio, VideoContentPart, VideoMessage, VideoResolution, VideoSeconds } from './videos.ts';

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
export const VideoMessageSchema: z.ZodMiniObject<
  {
    role: z.ZodMiniType<VideoMessage['role'], VideoMessage['role']>;
    content: z.ZodMiniType<string | VideoContentPart[], string | VideoContentPart[]>;
  },
  z.core.$loose
> = objectSchema(VIDEO_MESSAGE_RULE);

/**
 * The JSON body of `POST /v1/video/generate`, checked by the rules the client runs (same paths,
 * same messages). Unknown fields pass through.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { VideoGenerateBodySchema } from 'omnimedia/schemas';
 * const body = z.parse(VideoGenerateBodySchema, { model: 'omni_flash', messages: [{ role: 'user', content: 'a fox' }], seconds: 8 });
 * body.seconds; // '8': sent as a string
 * ```
 */
export const VideoGenerateBodySchema: z.ZodMiniObject<
  {
    model: z.ZodMiniType<string, string>;
    messages: z.ZodMiniType<VideoMessage[], VideoMessage[]>;
    seconds: z.ZodMiniOptional<z.ZodMiniType<Exclude<VideoSeconds, number>, VideoSeconds>>;
    aspect_ratio: z.ZodMiniOptional<z.ZodMiniType<AspectRatio, AspectRatio>>;
    resolution: z.ZodMiniOptional<z.ZodMiniType<VideoResolution, VideoResolution>>;
    callback_url: z.ZodMiniOptional<z.ZodMiniType<string, string>>;
  },
  z.core.$loose
> = objectSchema(VIDEO_GENERATE_RULE);

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
export const VideoEditBodySchema: z.ZodMiniObject<
  {
    model: z.ZodMiniType<string, string>;
    messages: z.ZodMiniType<VideoMessage[], VideoMessage[]>;
    input_video: z.ZodMiniType<{ upload_id: string }, { upload_id: string }>;
    seconds: z.ZodMiniOptional<z.ZodMiniType<never, never>>;
    aspect_ratio: z.ZodMiniOptional<z.ZodMiniType<AspectRatio, AspectRatio>>;
    resolution: z.ZodMiniOptional<z.ZodMiniType<VideoResolution, VideoResolution>>;
    callback_url: z.ZodMiniOptional<z.ZodMiniType<string, string>>;
  },
  z.core.$loose
> = objectSchema(VIDEO_EDIT_RULE);
