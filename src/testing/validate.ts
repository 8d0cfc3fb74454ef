// The service's own checks of request bodies (spec 4.1-4.6 and 8). They follow the spec, not
// the client: the limits come from the SDK's pure rule functions so each rule is written
// once, but what is required, what is refused and how is decided here, from the spec.
import { countCodePoints, MAX_IMAGE_PROMPT_LENGTH } from '../schemas/fields.ts';
import { imageSizeProblem } from '../schemas/image-size.ts';
import {
  ASPECT_RATIOS,
  IMAGE_QUALITIES,
  IMAGE_TO_VIDEO_MODEL,
  MAX_REFERENCE_IMAGES,
  TEXT_TO_VIDEO_MODEL,
  VIDEO_EDIT_MODEL,
  VIDEO_RESOLUTIONS,
  VIDEO_SECONDS,
} from '../schemas/constants.ts';
import { MAX_JSON_BODY_BYTES, chunksOf, readAtMost } from '../internal/chunks.ts';
import { contentLength } from '../internal/content-length.ts';
import { RequestProblem } from './request-problem.ts';

type Body = Record<string, unknown>;

/**
 * Parse a submission body: JSON (`Content-Type: application/json`), an object, at most
 * MAX_JSON_BODY_BYTES (1 MiB, as the proxy; the spec gives no limit): past it, 413 the moment
 * the count passes it, nothing more read.
 */
export async function readJsonBody(request: Request): Promise<Body> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type)) throw new RequestProblem('the body must be JSON (Content-Type: application/json)');
  const tooLarge = () => new RequestProblem(`the JSON body is larger than ${MAX_JSON_BODY_BYTES.toLocaleString('en-US')} bytes`, undefined, 413);
  const declared = contentLength(request.headers.get('content-length'));
  if (declared !== undefined && declared > MAX_JSON_BODY_BYTES) throw tooLarge();
  const { read, release } = chunksOf(request.body);
  const bytes = await readAtMost(read, MAX_JSON_BODY_BYTES);
  if (!bytes) {
    release();
    throw tooLarge();
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new RequestProblem('the body is not valid JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new RequestProblem('the body must be a JSON object');
  return body as Body;
}

function requiredString(body: Body, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw new RequestProblem(`${field} is required`, field);
  if (typeof value !== 'string') throw new RequestProblem(`${field} must be a string`, field);
  if (value.trim() === '') throw new RequestProblem(`${field} must not be empty`, field);
  return value;
}

function optionalEnum<T extends string>(body: Body, field: string, values: readonly T[], fallback: T): T {
  const value = body[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value))
    throw new RequestProblem(`${field} must be one of ${values.join(', ')} (got ${JSON.stringify(value)})`, field);
  return value as T;
}

function callbackUrl(body: Body): string | undefined {
  const value = body.callback_url;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw new RequestProblem('callback_url must be an absolute http(s) URL', 'callback_url');
  return value;
}

function imagePrompt(body: Body): string {
  const prompt = requiredString(body, 'prompt');
  const length = countCodePoints(prompt);
  if (length > MAX_IMAGE_PROMPT_LENGTH)
    throw new RequestProblem(`prompt must be at most ${MAX_IMAGE_PROMPT_LENGTH} characters (got ${length})`, 'prompt');
  return prompt;
}

export type ImageQuality = (typeof IMAGE_QUALITIES)[number];

/** Fields of an accepted image request (generation or edit). */
export interface ImageRequest {
  model: string;
  prompt: string;
  size: { width: number; height: number; text: string };
  n: number;
  quality: ImageQuality;
  callbackUrl: string | undefined;
}

/** `auto` renders at 1024x1024, the most common size. */
const AUTO_SIZE = { width: 1024, height: 1024 };

function imageFields(body: Body): ImageRequest {
  const model = requiredString(body, 'model');
  const prompt = imagePrompt(body);
  const sizeValue = body.size ?? 'auto';
  if (typeof sizeValue !== 'string') throw new RequestProblem('size must be a string such as "1024x1024" or "auto"', 'size');
  const problem = imageSizeProblem(sizeValue);
  if (problem) throw new RequestProblem(`size ${problem}`, 'size');
  const [width, height] = sizeValue === 'auto' ? [AUTO_SIZE.width, AUTO_SIZE.height] : sizeValue.split('x').map(Number);
  const n = body.n ?? 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 4)
    throw new RequestProblem(`n must be an integer from 1 to 4 (got ${JSON.stringify(n)})`, 'n');
  return {
    model,
    prompt,
    size: { width: width ?? AUTO_SIZE.width, height: height ?? AUTO_SIZE.height, text: sizeValue },
    n,
    quality: optionalEnum(body, 'quality', IMAGE_QUALITIES, 'auto'),
    callbackUrl: callbackUrl(body),
  };
}

/** `POST /v1/images/generations` (4.1). */
export function validateImageGeneration(body: Body): ImageRequest {
  return imageFields(body);
}

/** `POST /v1/images/edits` (4.3): the images are checked against the upload store by the caller. */
export function validateImageEdit(body: Body): ImageRequest & { images: string[]; mask: string | undefined } {
  const fields = imageFields(body);
  const image = body.image;
  let images: string[];
  if (typeof image === 'string') images = [image];
  else if (Array.isArray(image)) images = image as string[];
  else if (image === undefined || image === null) throw new RequestProblem('image is required', 'image');
  else throw new RequestProblem('image must be an uploaded image URL or a list of them', 'image');
  if (images.length === 0) throw new RequestProblem('image must hold at least one image', 'image');
  images.forEach((url, i) => {
    if (typeof url !== 'string' || url === '') throw new RequestProblem(`image[${i}] must be an uploaded image URL`, `image[${i}]`);
  });
  const mask = body.mask;
  if (mask !== undefined && (typeof mask !== 'string' || mask === ''))
    throw new RequestProblem('mask must be an uploaded image URL', 'mask');
  return { ...fields, images, mask };
}

type Resolution = (typeof VIDEO_RESOLUTIONS)[number];
type Seconds = (typeof VIDEO_SECONDS)[number];

/** Fields of an accepted video request. */
export interface VideoRequest {
  model: string;
  prompt: string;
  imageUrls: string[];
  resolution: Resolution;
  /** `undefined` for edits, which take none. */
  seconds: Seconds | undefined;
  aspectRatio: string | undefined;
  callbackUrl: string | undefined;
}

/** The text and image URLs of chat-format `messages`. */
function readMessages(body: Body): { text: string; imageUrls: string[] } {
  const messages = body.messages;
  if (messages === undefined || messages === null) throw new RequestProblem('messages is required', 'messages');
  if (!Array.isArray(messages) || messages.length === 0) throw new RequestProblem('messages must be a non-empty list of chat messages', 'messages');
  const texts: string[] = [];
  const imageUrls: string[] = [];
  messages.forEach((message: unknown, i) => {
    const path = `messages[${i}]`;
    if (!message || typeof message !== 'object') throw new RequestProblem(`${path} must be an object with role and content`, path);
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (typeof role !== 'string' || role === '') throw new RequestProblem(`${path}.role must be a string such as "user"`, `${path}.role`);
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      content.forEach((part: unknown, j) => {
        const partPath = `${path}.content[${j}]`;
        const p = (part ?? {}) as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
        if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
        else if (p.type === 'image_url' && typeof p.image_url?.url === 'string' && p.image_url.url !== '') imageUrls.push(p.image_url.url);
        else throw new RequestProblem(`${partPath} must be {type: "text", text} or {type: "image_url", image_url: {url}}`, partPath);
      });
    } else throw new RequestProblem(`${path}.content must be a string or a list of parts`, `${path}.content`);
  });
  const text = texts.join('\n').trim();
  if (text === '') throw new RequestProblem('messages must hold a text prompt', 'messages');
  return { text, imageUrls };
}

function videoOptions(body: Body) {
  const aspect = body.aspect_ratio;
  if (aspect !== undefined && (typeof aspect !== 'string' || !(ASPECT_RATIOS as readonly string[]).includes(aspect)))
    throw new RequestProblem(`aspect_ratio must be one of ${ASPECT_RATIOS.join(', ')} (got ${JSON.stringify(aspect)})`, 'aspect_ratio');
  return {
    resolution: optionalEnum(body, 'resolution', VIDEO_RESOLUTIONS, '720p'),
    aspectRatio: aspect as string | undefined,
    callbackUrl: callbackUrl(body),
  };
}

/** `POST /v1/video/generate` (4.4): image URLs are checked against the upload store by the caller. */
export function validateVideoGeneration(body: Body): VideoRequest {
  const model = requiredString(body, 'model');
  if (model !== TEXT_TO_VIDEO_MODEL && model !== IMAGE_TO_VIDEO_MODEL)
    throw new RequestProblem(`model must be ${TEXT_TO_VIDEO_MODEL} (text to video) or ${IMAGE_TO_VIDEO_MODEL} (image to video)`, 'model');
  const { text, imageUrls } = readMessages(body);
  if (model === TEXT_TO_VIDEO_MODEL && imageUrls.length > 0)
    throw new RequestProblem(`${TEXT_TO_VIDEO_MODEL} is text to video; reference images need ${IMAGE_TO_VIDEO_MODEL}`, 'messages');
  if (model === IMAGE_TO_VIDEO_MODEL && imageUrls.length === 0)
    throw new RequestProblem(`${IMAGE_TO_VIDEO_MODEL} needs at least one image_url part`, 'messages');
  if (imageUrls.length > MAX_REFERENCE_IMAGES)
    throw new RequestProblem(`at most ${MAX_REFERENCE_IMAGES} reference images (got ${imageUrls.length})`, 'messages');
  // The spec types seconds as a string ("4", "6", "8", "10"); a number is refused.
  const seconds = optionalEnum(body, 'seconds', VIDEO_SECONDS, '10');
  return { model, prompt: text, imageUrls, seconds, ...videoOptions(body) };
}

/** `POST /v1/video/edits` (4.6). */
export function validateVideoEdit(body: Body): VideoRequest & { uploadId: string } {
  const model = requiredString(body, 'model');
  if (model !== VIDEO_EDIT_MODEL) throw new RequestProblem(`model must be ${VIDEO_EDIT_MODEL}`, 'model');
  if (body.seconds !== undefined) throw new RequestProblem('the edit endpoint takes no seconds parameter', 'seconds');
  const { text, imageUrls } = readMessages(body);
  if (imageUrls.length > 0) throw new RequestProblem('video edits take no reference images', 'messages');
  const input = body.input_video as { upload_id?: unknown } | undefined | null;
  if (input === undefined || input === null) throw new RequestProblem('input_video is required', 'input_video');
  if (typeof input !== 'object' || typeof input.upload_id !== 'string' || input.upload_id === '')
    throw new RequestProblem('input_video must be {upload_id} from the video upload', 'input_video.upload_id');
  return { model, prompt: text, imageUrls: [], seconds: undefined, uploadId: input.upload_id, ...videoOptions(body) };
}
