import type { ValidationIssue } from '../errors.ts';
import { DEFAULT_IMAGE_TIMEOUT_MS, type RequestOptions } from '../options.ts';
import { AutoUploads } from '../uploads/auto-upload.ts';
import { IMAGE_UPLOAD_RULE } from '../uploads/inputs.ts';
import type { ResourceContext } from './context.ts';
import { submitTask, type Submission } from './submission.ts';
import { SUBMISSION_ANSWER } from '../schemas/answers.ts';
import type { TaskPromise } from '../waiting/task-promise.ts';
import type { ImageEditParams, ImageGenerateParams, ImageReference } from '../schemas/images.ts';
import type { TaskSubmission } from '../schemas/task.ts';
import { IMAGE_EDIT_RULE, IMAGE_GENERATE_RULE } from '../schemas/image-rules.ts';
import { parseInput } from '../validation/parse.ts';

// Image tasks have no normalized_model: their kind, for learning durations, is what was asked.
function imageDurationKey(operation: string, body: Record<string, unknown>): string {
  return `${operation}:${String(body.model)}:${String(body.size ?? 'auto')}:n${String(body.n ?? 1)}:${String(body.quality ?? 'auto')}`;
}

/**
 * `POST /v1/images/generations` and `POST /v1/images/edits`.
 *
 * @example
 * ```ts
 * const task = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse at dawn' }).wait();
 * const edited = await client.images.edit({ model: 'omni-image', prompt: 'make it night', image: upload }).wait();
 * ```
 */
export class Images {
  readonly #context: Pick<ResourceContext, 'http' | 'callbackTokens' | 'waiting' | 'journal' | 'upload' | 'telemetry'>;

  /** @internal */
  constructor(context: Pick<ResourceContext, 'http' | 'callbackTokens' | 'waiting' | 'journal' | 'upload' | 'telemetry'>) {
    this.#context = context;
  }

  /**
   * Submit an image generation task. Await it for the submission, or `.wait()` for the result.
   *
   * @example
   * ```ts
   * const task = await client.images
   *   .generate({ model: 'omni-image', prompt: 'a lighthouse at dawn', size: '1536x1024' })
   *   .wait();
   * console.log(task.data?.map((d) => d.url));
   * ```
   */
  generate(params: ImageGenerateParams, options?: RequestOptions): TaskPromise<TaskSubmission> {
    return submitTask(this.#context, this.submission('generate'), params, options);
  }

  /**
   * Submit an image editing task. Each `image` (and the `mask`) is an upload URL, an upload
   * record, or a file object (`fileFromPath`, `Blob`, bytes, a stream...) which is uploaded
   * first, in parallel with the others, after every parameter has been checked.
   *
   * @example
   * ```ts
   * const task = await client.images
   *   .edit({ model: 'omni-image', prompt: 'make it night', image: fileFromPath('./photo.png') })
   *   .wait();
   * ```
   */
  edit(params: ImageEditParams, options?: RequestOptions): TaskPromise<TaskSubmission> {
    return submitTask(this.#context, this.submission('edit'), params, options);
  }

  /**
   * @internal What `generate` or `edit` submits: the batch checks a job by its `body` (a
   * `ValidationError`, nothing sent) before any job of the file is sent.
   */
  submission(action: 'generate' | 'edit'): Submission {
    if (action === 'edit')
      return {
        path: 'v1/images/edits',
        what: 'images.edit',
        kind: 'image_edit',
        answer: SUBMISSION_ANSWER,
        defaultTimeout: DEFAULT_IMAGE_TIMEOUT_MS,
        durationKey: (body) => imageDurationKey('image_edit', body),
        model: (p) => p.model,
        body: (p, requestOptions) => {
          const issues: ValidationIssue[] = [];
          const uploads = new AutoUploads(issues);
          const url = (ref: ImageReference, path: string) => uploads.reference(ref, 'url', path, IMAGE_UPLOAD_RULE);
          const { image, mask, ...rest } = p as unknown as ImageEditParams;
          const body = {
            ...rest,
            image: Array.isArray(image) ? image.map((ref, i) => url(ref, `image[${i}]`)) : url(image, 'image'),
            ...(mask !== undefined ? { mask: url(mask, 'mask') } : {}),
          };
          return uploads.settle(this.#context.upload, requestOptions.signal, () =>
            parseInput(IMAGE_EDIT_RULE, body, 'images.edit params', issues),
          );
        },
      };
    return {
      path: 'v1/images/generations',
      what: 'images.generate',
      kind: 'image_generation',
      answer: SUBMISSION_ANSWER,
      defaultTimeout: DEFAULT_IMAGE_TIMEOUT_MS,
      durationKey: (body) => imageDurationKey('image_generation', body),
      model: (p) => p.model,
      body: (p) => parseInput(IMAGE_GENERATE_RULE, p, 'images.generate params'),
    };
  }
}
