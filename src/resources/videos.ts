import type { ValidationIssue } from '../errors.ts';
import { DEFAULT_VIDEO_TIMEOUT_MS, type RequestOptions } from '../options.ts';
import { AutoUploads } from '../uploads/auto-upload.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE } from '../uploads/inputs.ts';
import type { ResourceContext } from './context.ts';
import { submitTask, type Submission } from './submission.ts';
import { VIDEO_SUBMISSION_ANSWER } from '../schemas/answers.ts';
import type { TaskPromise } from '../waiting/task-promise.ts';
import { VIDEO_EDIT_RULE, VIDEO_GENERATE_RULE, VIDEO_PROMPT_RULE } from '../schemas/video-rules.ts';
import { checkInput, parseInput } from '../validation/parse.ts';
import { IMAGE_TO_VIDEO_MODEL, MAX_REFERENCE_IMAGES, TEXT_TO_VIDEO_MODEL, VIDEO_EDIT_MODEL } from '../schemas/constants.ts';
import type { VideoTaskSubmission } from '../schemas/task.ts';
import type { VideoEditParams, VideoGenerateParams, VideoImageReference, VideoMessage } from '../schemas/videos.ts';

/** The spec's message shape: image parts first, then the text. */
function messagesFrom(prompt: string, imageUrls: readonly string[]): VideoMessage[] {
  if (imageUrls.length === 0) return [{ role: 'user', content: prompt }];
  return [
    {
      role: 'user',
      content: [
        ...imageUrls.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
        { type: 'text' as const, text: prompt },
      ],
    },
  ];
}

/** The prompt when valid; else its issues are recorded and a placeholder keeps the body well-formed. */
function promptOrPlaceholder(prompt: unknown, issues: ValidationIssue[]): string {
  const before = issues.length;
  const text = checkInput(VIDEO_PROMPT_RULE, prompt, issues, ['prompt']);
  return issues.length === before ? text : '-';
}

/** The model a generation names: the caller's, else the one its images call for (text or image to video). */
function videoGenerateModel(params: Record<string, unknown>): unknown {
  const { model, images, messages } = params;
  if (model !== undefined || messages !== undefined) return model;
  return Array.isArray(images) && images.length > 0 ? IMAGE_TO_VIDEO_MODEL : TEXT_TO_VIDEO_MODEL;
}

// Used when the answer has no normalized_model: the kind of task, for learning durations.
function videoDurationKey(operation: string, body: Record<string, unknown>): string {
  const seconds = operation === 'video_edit' ? 'source' : String(body.seconds ?? '10');
  return `${operation}:${String(body.model)}:${String(body.resolution ?? '720p')}:${seconds}`;
}

/**
 * `POST /v1/video/generate` and `POST /v1/video/edits` (both answer 202).
 *
 * @example
 * ```ts
 * const video = await client.videos.generate({ prompt: 'a paper boat on a river', seconds: 8 }).wait();
 * const edited = await client.videos.edit({ prompt: 'make it snow', input_video: source }).wait();
 * ```
 */
export class Videos {
  readonly #context: Pick<ResourceContext, 'http' | 'callbackTokens' | 'waiting' | 'journal' | 'upload' | 'telemetry'>;

  /** @internal */
  constructor(context: Pick<ResourceContext, 'http' | 'callbackTokens' | 'waiting' | 'journal' | 'upload' | 'telemetry'>) {
    this.#context = context;
  }

  /**
   * Submit a text-to-video or image-to-video task. Give `prompt` (and up to 3 `images`) and
   * the SDK builds the chat `messages`, or pass raw `messages`. `seconds` may be a number.
   * An image may be a file object (`fileFromPath`, `Blob`, bytes...): it is uploaded first.
   *
   * @example
   * ```ts
   * const video = await client.videos
   *   .generate({ prompt: 'a paper boat on a river', seconds: 8, resolution: '1080p' })
   *   .wait();
   * console.log(video.data?.[0]?.url);
   * ```
   */
  generate(params: VideoGenerateParams, options?: RequestOptions): TaskPromise<VideoTaskSubmission> {
    return submitTask(this.#context, this.submission('generate'), params, options);
  }

  /**
   * Submit a video editing task on an uploaded video (its `upload_id`, or the record
   * `uploads.video` returned), or on a file object that is uploaded first. Edits take no
   * `seconds`.
   *
   * @example
   * ```ts
   * const clip = await client.uploads.video('./clip.mp4');
   * const edited = await client.videos.edit({ prompt: 'make it snow', input_video: clip }).wait();
   * ```
   */
  edit(params: VideoEditParams, options?: RequestOptions): TaskPromise<VideoTaskSubmission> {
    return submitTask(this.#context, this.submission('edit'), params, options);
  }

  /**
   * @internal What `generate` or `edit` submits: the batch checks a job by its `body` (a
   * `ValidationError`, nothing sent) before any job of the file is sent.
   */
  submission(action: 'generate' | 'edit'): Submission {
    if (action === 'edit')
      return {
        path: 'v1/video/edits',
        what: 'videos.edit',
        kind: 'video_edit',
        answer: VIDEO_SUBMISSION_ANSWER,
        defaultTimeout: DEFAULT_VIDEO_TIMEOUT_MS,
        durationKey: (body) => videoDurationKey('video_edit', body),
        model: (p) => p.model ?? VIDEO_EDIT_MODEL,
        body: (p, requestOptions) => {
          const issues: ValidationIssue[] = [];
          const uploads = new AutoUploads(issues);
          const { prompt, messages, model, input_video, ...rest } = p as unknown as VideoEditParams;
          if (messages !== undefined && prompt !== undefined)
            issues.push({ path: 'messages', message: 'give either messages or prompt, not both' });
          const uploadId =
            input_video === undefined ? undefined : uploads.reference(input_video, 'upload_id', 'input_video', VIDEO_UPLOAD_RULE);
          const body = {
            ...rest,
            model: model ?? VIDEO_EDIT_MODEL,
            messages: messages ?? messagesFrom(promptOrPlaceholder(prompt, issues), []),
            ...(uploadId !== undefined ? { input_video: { upload_id: uploadId } } : {}),
          };
          return uploads.settle(this.#context.upload, requestOptions.signal, () =>
            parseInput(VIDEO_EDIT_RULE, body, 'videos.edit params', issues),
          );
        },
      };
    return {
      path: 'v1/video/generate',
      what: 'videos.generate',
      kind: 'video_generation',
      answer: VIDEO_SUBMISSION_ANSWER,
      defaultTimeout: DEFAULT_VIDEO_TIMEOUT_MS,
      durationKey: (body) => videoDurationKey('video_generation', body),
      model: videoGenerateModel,
      body: (p, requestOptions) => {
        const issues: ValidationIssue[] = [];
        const uploads = new AutoUploads(issues);
        const { prompt, images, messages, model, ...rest } = p as unknown as VideoGenerateParams & {
          images?: VideoImageReference[];
        };
        if (messages !== undefined) {
          if (prompt !== undefined || images !== undefined)
            issues.push({ path: 'messages', message: 'give either messages or prompt (with images), not both' });
          return parseInput(VIDEO_GENERATE_RULE, { ...rest, model, messages }, 'videos.generate params', issues);
        }
        const text = checkInput(VIDEO_PROMPT_RULE, prompt, issues, ['prompt']);
        let urls: string[] = [];
        if (images !== undefined && !Array.isArray(images)) issues.push({ path: 'images', message: 'must be a list of images' });
        else if (images) {
          if (images.length > MAX_REFERENCE_IMAGES)
            issues.push({
              path: 'images',
              message: `must hold at most ${MAX_REFERENCE_IMAGES} reference images (got ${images.length})`,
            });
          urls = images.map((ref, i) => uploads.reference(ref, 'url', `images[${i}]`, IMAGE_UPLOAD_RULE));
          urls.forEach((url, i) => {
            if (typeof url !== 'string' || url === '')
              issues.push({ path: `images[${i}]`, message: 'must be an uploaded image URL or upload record' });
          });
        }
        const chosen = videoGenerateModel(p);
        if (chosen === TEXT_TO_VIDEO_MODEL && urls.length > 0)
          issues.push({ path: 'model', message: `${TEXT_TO_VIDEO_MODEL} is text to video; reference images need ${IMAGE_TO_VIDEO_MODEL}` });
        if (chosen === IMAGE_TO_VIDEO_MODEL && urls.length === 0)
          issues.push({ path: 'images', message: `${IMAGE_TO_VIDEO_MODEL} (image to video) needs at least one reference image` });
        // With the prompt or images already reported, build well-formed messages so the
        // report names the fields the caller wrote, not the messages we derive.
        const messagesOk = issues.length === 0;
        const body = { ...rest, model: chosen, messages: messagesOk ? messagesFrom(text, urls) : messagesFrom('-', []) };
        return uploads.settle(this.#context.upload, requestOptions.signal, () =>
          parseInput(VIDEO_GENERATE_RULE, body, 'videos.generate params', issues),
        );
      },
    };
  }
}
