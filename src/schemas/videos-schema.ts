import * as z from 'zod/mini';
import { ASPECT_RATIOS, MAX_REFERENCE_IMAGES, VIDEO_RESOLUTIONS, VIDEO_SECONDS } from './constants.ts';
import { callbackUrlSchema, enumSchema, modelSchema, mustBe, oneOf, promptSchema } from './fields.ts';
import type { VideoSeconds } from './videos.ts';

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

// Typed by hand: an inferred union of literals prints in whatever order the compiler met its
// members, which made the API report (api/) differ between machines.
const secondsSchema: z.ZodMiniType<(typeof VIDEO_SECONDS)[number], VideoSeconds> = z.pipe(
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

/** @internal The prompt of the `{ prompt }` form, checked before the messages are built. */
export const videoPromptSchema = promptSchema();
