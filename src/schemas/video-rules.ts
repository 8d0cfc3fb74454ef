import { ASPECT_RATIOS, MAX_REFERENCE_IMAGES, VIDEO_RESOLUTIONS, VIDEO_SECONDS } from './constants.ts';
import { callbackUrl, enumOf, model, oneOf, prompt } from './fields.ts';
import { either, filled, isRecord, list, object, optional, refine, rule, text, type Rule } from './rules.ts';
import type { VideoContentPart, VideoMessage, VideoSeconds } from './videos.ts';

// A part's form is told by its `type` (`either` picks the part's rule by it), which the
// schema states as a constant.
const partOf = (type: string, shape: Parameters<typeof object>[0]) => object({ type: rule(() => undefined, undefined, { const: type }), ...shape });
const textPart = partOf('text', { text: text() });
const imagePart = partOf('image_url', { image_url: object({ url: filled('an uploaded image URL') }, 'an object {url}') });
const parts = list(
  either<VideoContentPart>(
    'a {type: "text", text} or {type: "image_url", image_url: {url}} part',
    (part) =>
      isRecord(part) ? ((part.type === 'text' ? textPart : part.type === 'image_url' ? imagePart : undefined) as Rule<VideoContentPart> | undefined) : undefined,
    [textPart, imagePart],
  ),
  'a list',
);

/** One chat-format message of a video request. */
export const VIDEO_MESSAGE_RULE = object(
  {
    role: text('a string such as "user"') as Rule<VideoMessage['role']>,
    content: either<string | VideoContentPart[]>(
      'a string or a list of content parts',
      (value) => (typeof value === 'string' ? text() : Array.isArray(value) ? parts : undefined),
      [text(), parts],
    ),
  },
  'a chat message {role, content}',
);

const messages = refine(list(VIDEO_MESSAGE_RULE, 'a list of chat messages', 'must hold at least one message'), (sent) => {
  const images = sent
    .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    .filter((part) => (part as VideoContentPart).type === 'image_url').length;
  return images > MAX_REFERENCE_IMAGES ? `may reference at most ${MAX_REFERENCE_IMAGES} images (got ${images})` : undefined;
}) as Rule<VideoMessage[]>;

/** 4, 6, 8 or 10, as a number or its string; sent as the string, as the spec asks. */
const seconds = rule<(typeof VIDEO_SECONDS)[number], VideoSeconds>(
  (value) =>
    (typeof value === 'number' || typeof value === 'string') && (VIDEO_SECONDS as readonly string[]).includes(String(value))
      ? undefined
      : `must be one of ${oneOf(VIDEO_SECONDS.map(Number))}`,
  (value) => String(value) as (typeof VIDEO_SECONDS)[number],
  { enum: [...VIDEO_SECONDS.map(Number), ...VIDEO_SECONDS] },
);

const videoOptions = {
  aspect_ratio: optional(enumOf(ASPECT_RATIOS)),
  resolution: optional(enumOf(VIDEO_RESOLUTIONS)),
  callback_url: optional(callbackUrl),
};

/** The JSON body of `POST /v1/video/generate`. */
export const VIDEO_GENERATE_RULE = object({ model, messages, seconds: optional(seconds), ...videoOptions });

/** The JSON body of `POST /v1/video/edits`: no `seconds`, the length follows the source video. */
export const VIDEO_EDIT_RULE = object({
  model,
  messages,
  input_video: object({ upload_id: filled('a video upload id') }, '{upload_id} from uploads.video'),
  seconds: optional(rule<never>(() => 'video edits take no seconds: the length follows the source video', undefined, { not: {} })),
  ...videoOptions,
});

/** The prompt of the `{ prompt }` form, checked before the messages are built. */
export const VIDEO_PROMPT_RULE = prompt();
