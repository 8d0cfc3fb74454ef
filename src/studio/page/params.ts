/**
 * The form's state, what it sends, and the rules' messages before anything is sent. The
 * controls' choices are the spec's constants and the messages the SDK's own rules (the ones
 * `images.generate` & co. run), checked on a body shaped as the one that will be sent, files
 * standing in for the uploads they become.
 */
import {
  ASPECT_RATIOS,
  IMAGE_QUALITIES,
  MAX_IMAGE_PROMPT_LENGTH,
  MAX_IMAGES_PER_REQUEST,
  MAX_REFERENCE_IMAGES,
  VIDEO_EDIT_MODEL,
  VIDEO_RESOLUTIONS,
  VIDEO_SECONDS,
} from '../../schemas/constants.ts';
import { IMAGE_EDIT_RULE, IMAGE_GENERATE_RULE } from '../../schemas/image-rules.ts';
import type { RuleIssue } from '../../schemas/rules.ts';
import { VIDEO_EDIT_RULE, VIDEO_GENERATE_RULE, VIDEO_PROMPT_RULE } from '../../schemas/video-rules.ts';
import type { StudioOperation } from '../journal.ts';

export { ASPECT_RATIOS, IMAGE_QUALITIES, MAX_IMAGE_PROMPT_LENGTH, MAX_IMAGES_PER_REQUEST, MAX_REFERENCE_IMAGES, VIDEO_RESOLUTIONS, VIDEO_SECONDS };

/** A file the user chose (uploaded through the proxy when sent), or one uploaded by an earlier run. */
export type MediaRef = { kind: 'file'; file: File } | { kind: 'url'; url: string } | { kind: 'upload'; upload_id: string };

/** What the form holds: every control's value as typed. */
export interface FormState {
  op: StudioOperation;
  model: string;
  prompt: string;
  size: string;
  n: string;
  quality: string;
  seconds: string;
  resolution: string;
  aspect_ratio: string;
  images: MediaRef[];
  mask: MediaRef | undefined;
  video: MediaRef | undefined;
}

/** The operations, as the page names them. */
export const OPERATIONS: readonly { op: StudioOperation; label: string }[] = [
  { op: 'images.generate', label: 'Generate image' },
  { op: 'images.edit', label: 'Edit image' },
  { op: 'videos.generate', label: 'Generate video' },
  { op: 'videos.edit', label: 'Edit video' },
];

/** Sizes offered (any WIDTHxHEIGHT the rule accepts may be typed). */
export const SIZE_CHOICES = ['auto', '1024x1024', '1536x1024', '1024x1536', '2048x2048', '3840x2160'];

const DEFAULT_MODEL: Record<StudioOperation, string> = { 'images.generate': 'omni-image', 'images.edit': 'omni-image', 'videos.generate': '', 'videos.edit': VIDEO_EDIT_MODEL };

export const emptyForm = (op: StudioOperation = 'images.generate'): FormState => ({
  op,
  model: DEFAULT_MODEL[op],
  prompt: '',
  size: '',
  n: '',
  quality: '',
  seconds: '',
  resolution: '',
  aspect_ratio: '',
  images: [],
  mask: undefined,
  video: undefined,
});

/** Which controls an operation has. */
export const FIELDS: Record<StudioOperation, readonly string[]> = {
  'images.generate': ['model', 'prompt', 'size', 'n', 'quality'],
  'images.edit': ['model', 'prompt', 'images', 'mask', 'size', 'n', 'quality'],
  'videos.generate': ['model', 'prompt', 'images', 'seconds', 'resolution', 'aspect_ratio'],
  'videos.edit': ['model', 'prompt', 'video', 'resolution', 'aspect_ratio'],
};

const set = (value: string) => (value.trim() === '' ? undefined : value.trim());
const numberOf = (value: string) => (value.trim() === '' ? undefined : Number(value));
const defined = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

/** A reference as the SDK takes it: the file itself (it uploads it), the URL, or the upload. */
const refParam = (ref: MediaRef): unknown => (ref.kind === 'file' ? ref.file : ref.kind === 'url' ? ref.url : { upload_id: ref.upload_id });

/** The params of the SDK method (`client.images.generate(params)` & co.). */
export function paramsOf(form: FormState): Record<string, unknown> {
  const image = { size: set(form.size), n: numberOf(form.n), quality: set(form.quality) };
  const video = { resolution: set(form.resolution), aspect_ratio: set(form.aspect_ratio) };
  switch (form.op) {
    case 'images.generate':
      return defined({ model: form.model, prompt: form.prompt, ...image });
    case 'images.edit':
      return defined({ model: form.model, prompt: form.prompt, image: form.images.map(refParam), mask: form.mask && refParam(form.mask), ...image });
    case 'videos.generate':
      return defined({ model: set(form.model), prompt: form.prompt, images: form.images.length > 0 ? form.images.map(refParam) : undefined, seconds: numberOf(form.seconds), ...video });
    case 'videos.edit':
      return defined({ model: set(form.model), prompt: form.prompt, input_video: form.video && refParam(form.video), ...video });
  }
}

/** What an uploaded reference becomes in the body, for the rules (a file is not uploaded yet). */
const STAND_IN = 'https://studio.invalid/upload';
const bodyRef = (ref: MediaRef) => (ref.kind === 'url' ? ref.url : STAND_IN);

/** The control a rule's path points at (`messages[0].content` is the prompt and its images). */
function controlOf(path: readonly (string | number)[], op: StudioOperation): string {
  const [first] = path;
  if (first === 'messages') return op === 'videos.generate' && path.length === 1 ? 'images' : 'prompt';
  if (first === 'image') return 'images';
  if (first === 'input_video') return 'video';
  return String(first ?? 'form');
}

/**
 * The rules' messages by control, for the body `form` would send: the same rules, paths and
 * words as the SDK's `ValidationError` (which the submission gives too, should one slip by).
 */
export function issuesOf(form: FormState): Record<string, string[]> {
  const issues: RuleIssue[] = [];
  const prompt = form.prompt;
  const video = { resolution: set(form.resolution), aspect_ratio: set(form.aspect_ratio) };
  const content = (images: MediaRef[]) => [{ type: 'text', text: prompt }, ...images.map((ref) => ({ type: 'image_url', image_url: { url: bodyRef(ref) } }))];
  switch (form.op) {
    case 'images.generate':
      IMAGE_GENERATE_RULE(paramsOf(form), issues, []);
      break;
    case 'images.edit':
      IMAGE_EDIT_RULE({ ...paramsOf(form), image: form.images.map(bodyRef), mask: form.mask && bodyRef(form.mask) }, issues, []);
      break;
    case 'videos.generate':
      VIDEO_PROMPT_RULE(prompt, issues, ['prompt']);
      VIDEO_GENERATE_RULE(defined({ model: set(form.model) ?? 'auto', messages: [{ role: 'user', content: content(form.images) }], seconds: set(form.seconds), ...video }), issues, []);
      break;
    case 'videos.edit':
      VIDEO_PROMPT_RULE(prompt, issues, ['prompt']);
      VIDEO_EDIT_RULE(
        defined({ model: set(form.model) ?? VIDEO_EDIT_MODEL, messages: [{ role: 'user', content: prompt }], input_video: form.video ? { upload_id: 'stand-in' } : undefined, ...video }),
        issues,
        [],
      );
      break;
  }
  const byControl: Record<string, string[]> = {};
  for (const issue of issues) {
    const control = controlOf(issue.path, form.op);
    // One message per control and text: the prompt's rule runs on `prompt` and on the messages.
    if (!(byControl[control] ??= []).includes(issue.message)) byControl[control].push(issue.message);
  }
  return byControl;
}

/** The form that runs a journaled submission again: its body read back into the controls. */
export function formOf(op: StudioOperation, params: Record<string, unknown>): FormState {
  const form = emptyForm(op);
  const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
  form.model = text(params.model);
  for (const field of ['size', 'n', 'quality', 'seconds', 'resolution', 'aspect_ratio'] as const) form[field] = text(params[field]);
  if (typeof params.prompt === 'string') form.prompt = params.prompt;
  const images = params.image ?? params.images;
  if (typeof images === 'string') form.images = [{ kind: 'url', url: images }];
  else if (Array.isArray(images)) form.images = images.filter((url): url is string => typeof url === 'string').map((url) => ({ kind: 'url', url }));
  if (typeof params.mask === 'string') form.mask = { kind: 'url', url: params.mask };
  const input = params.input_video as { upload_id?: unknown } | undefined;
  if (typeof input?.upload_id === 'string') form.video = { kind: 'upload', upload_id: input.upload_id };
  // A video's body holds its prompt and reference images as one user message.
  const messages = params.messages as { content?: unknown }[] | undefined;
  const content = messages?.[0]?.content;
  if (typeof content === 'string') form.prompt = content;
  else if (Array.isArray(content)) {
    form.prompt = content.filter((part: { type?: string }) => part.type === 'text').map((part: { text?: string }) => part.text ?? '').join('\n');
    form.images = content.filter((part: { type?: string }) => part.type === 'image_url').map((part: { image_url?: { url?: string } }) => ({ kind: 'url', url: part.image_url?.url ?? '' }));
  }
  return form;
}
