/**
 * An AI SDK video call as the client's `videos.generate` or `videos.edit` params: the AI SDK's
 * pixel sizes and seconds mapped to the spec's values (a value with no mapping is a
 * `ValidationError` naming the AI SDK's field, before any request), reference images and a
 * video routed to image-to-video or an edit, and what the service has no field for as
 * warnings. The service's own rules (prompt, how many images, file types and sizes, which
 * model takes which input) stay the client's.
 */
import type { Experimental_VideoModelV4CallOptions as VideoModelV4CallOptions, SharedV4Warning } from '@ai-sdk/provider';
import type { ValidationIssue, VideoEditParams } from 'omnimedia';
import {
  ASPECT_RATIOS,
  IMAGE_TO_VIDEO_MODEL,
  TEXT_TO_VIDEO_MODEL,
  VIDEO_EDIT_MODEL,
  VIDEO_SECONDS,
  type AspectRatio,
  type VideoGeneratePromptParams,
  type VideoResolution,
  type VideoSeconds,
} from 'omnimedia/schemas';
import { headersWarnings, providerParams, throwIssues, unsupportedWarnings } from './call-options.ts';
import { fileKind, fileReference, type AiFile } from './files.ts';

/** What one AI SDK call submits. */
export type VideoPlan = { kind: 'generate'; params: VideoGeneratePromptParams } | { kind: 'edit'; params: VideoEditParams };

/** The spec's resolutions by the landscape pixel size the AI SDK speaks in (each also in portrait). */
const RESOLUTIONS: Record<string, VideoResolution> = { '1280x720': '720p', '1920x1080': '1080p', '3840x2160': '4K' };

/** The three models of the service's one video family: the inputs pick which (spec 1.4). */
const FAMILY = new Set<string>([TEXT_TO_VIDEO_MODEL, IMAGE_TO_VIDEO_MODEL, VIDEO_EDIT_MODEL]);

const UNSUPPORTED = {
  seed: 'the service takes no seed',
  fps: 'the service takes no frame rate',
  generateAudio: 'the service has no audio option',
};

const list = (values: readonly string[]) => `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

/** `resolution` as the spec's value and the orientation its pixel size says. */
function mapResolution(resolution: string, issues: ValidationIssue[]): { value: VideoResolution; aspect: AspectRatio } | undefined {
  const [width, height] = typeof resolution === 'string' ? resolution.split('x') : [];
  const landscape = RESOLUTIONS[resolution];
  const portrait = RESOLUTIONS[`${height}x${width}`];
  if (landscape) return { value: landscape, aspect: '16:9' };
  if (portrait) return { value: portrait, aspect: '9:16' };
  const sizes = Object.keys(RESOLUTIONS);
  issues.push({
    path: 'resolution',
    message: `must be ${list(sizes)} (or the same in portrait, e.g. 1080x1920): the service renders ${list(Object.values(RESOLUTIONS))} (got ${typeof resolution === 'string' ? resolution : typeof resolution})`,
  });
  return undefined;
}

/** `aspectRatio` and `resolution` as the spec's `aspect_ratio` and `resolution`. */
function mapFrame(options: VideoModelV4CallOptions, issues: ValidationIssue[], warnings: SharedV4Warning[]) {
  const resolution = options.resolution === undefined ? undefined : mapResolution(options.resolution, issues);
  let aspect: AspectRatio | undefined = resolution?.aspect;
  const asked = options.aspectRatio;
  if (asked === 'adaptive') {
    warnings.push({ type: 'compatibility', feature: 'aspectRatio', details: 'adaptive: sent without aspect_ratio, the service chooses' });
    aspect = undefined;
  } else if (asked !== undefined) {
    if (!(ASPECT_RATIOS as readonly string[]).includes(asked)) issues.push({ path: 'aspectRatio', message: `must be ${list(ASPECT_RATIOS)} (got ${asked})` });
    else if (resolution && asked !== resolution.aspect)
      issues.push({ path: 'aspectRatio', message: `${asked} contradicts resolution ${options.resolution} (${resolution.aspect})` });
    else aspect = asked as AspectRatio;
  }
  return { ...(resolution ? { resolution: resolution.value } : {}), ...(aspect ? { aspect_ratio: aspect } : {}) };
}

/**
 * The images (the start image, frame images, image references, in that order) and the video
 * (a video reference) of the call.
 */
function references(options: VideoModelV4CallOptions, issues: ValidationIssue[], warnings: SharedV4Warning[]) {
  const images: (string | Uint8Array)[] = [];
  const videos: { reference: string | Uint8Array; path: string }[] = [];
  const add = (file: AiFile, path: string) => {
    const reference = fileReference(file, path, issues);
    if (fileKind(file, reference) === 'video') videos.push({ reference, path });
    else images.push(reference);
  };
  // The AI SDK passes a first_frame frame image as `image` too (the same part): sent once.
  if (options.image) add(options.image, 'image');
  options.frameImages?.forEach((frame, i) => {
    if (frame.image === options.image) return;
    if (frame.frameType === 'last_frame')
      warnings.push({ type: 'compatibility', feature: 'frameImages', details: 'the service takes reference images without a role: the last frame is one more reference image' });
    add(frame.image, `frameImages[${i}]`);
  });
  options.inputReferences?.forEach((file, i) => add(file, `inputReferences[${i}]`));
  const [video, ...more] = videos;
  for (const extra of more) issues.push({ path: extra.path, message: 'a video edit takes one source video' });
  if (video && typeof video.reference === 'string')
    issues.push({ path: video.path, message: 'a video to edit must be file data (it is uploaded first), or an upload id in providerOptions.omnimedia.input_video' });
  return { images, video: video?.reference, videoPath: video?.path };
}

/**
 * The params of the client call for one AI SDK video call, and the warnings; a
 * `ValidationError` naming the AI SDK's field for a value with no mapping.
 */
export function planVideo(options: VideoModelV4CallOptions & { webhookUrl?: string }, modelId: string): { plan: VideoPlan; warnings: SharedV4Warning[] } {
  const issues: ValidationIssue[] = [];
  const warnings = [...unsupportedWarnings(options, UNSUPPORTED), ...headersWarnings(options.headers)];
  const extra = providerParams(options.providerOptions);
  const { images, video, videoPath } = references(options, issues, warnings);
  const edit = video !== undefined || extra.input_video !== undefined;
  if (edit && images.length > 0)
    issues.push({ path: videoPath ?? 'providerOptions.omnimedia.input_video', message: `a video edit takes no reference images (got ${images.length})` });
  let seconds: VideoSeconds | undefined;
  if (options.duration !== undefined) {
    if (edit) issues.push({ path: 'duration', message: 'a video edit takes no duration: its length follows the source video' });
    else if ((VIDEO_SECONDS as readonly string[]).includes(String(options.duration))) seconds = String(options.duration) as VideoSeconds;
    else issues.push({ path: 'duration', message: `must be ${list(VIDEO_SECONDS)} seconds (got ${options.duration})` });
  }
  const frame = mapFrame(options, issues, warnings);
  if (options.n !== 1) issues.push({ path: 'n', message: `the service makes one video per task (got ${options.n})` });
  throwIssues(issues, 'omnimedia video call');

  // A model of the family names the family: the client picks the one the inputs need.
  const model = FAMILY.has(modelId) ? {} : { model: modelId };
  const common = {
    ...extra,
    ...model,
    prompt: options.prompt as string,
    ...frame,
    ...(options.webhookUrl !== undefined ? { callback_url: options.webhookUrl } : {}),
  };
  if (edit) return { plan: { kind: 'edit', params: { ...common, input_video: (video ?? extra.input_video) as VideoEditParams['input_video'] } }, warnings };
  return { plan: { kind: 'generate', params: { ...common, ...(images.length > 0 ? { images } : {}), ...(seconds ? { seconds } : {}) } }, warnings };
}
