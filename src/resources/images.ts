import type { ValidationIssue } from '../core/errors.ts';
import { parseInput } from '../core/parse.ts';
import { DEFAULT_IMAGE_TIMEOUT_MS } from '../core/poll.ts';
import { resolveReference } from '../core/references.ts';
import { submitTask, type RequestOptions } from '../core/submit.ts';
import type { TaskPromise } from '../core/task-promise.ts';
import {
  ImageEditBodySchema,
  ImageGenerateParamsSchema,
  type ImageEditParams,
  type ImageGenerateParams,
  type ImageReference,
} from '../schemas/images.ts';
import { TaskSubmissionSchema, type TaskSubmission } from '../schemas/task.ts';
import { APIResource } from './resource.ts';

// Image tasks have no normalized_model: their kind, for learning durations, is what was asked.
function imageDurationKey(operation: string, body: Record<string, unknown>): string {
  return `${operation}:${String(body.model)}:${String(body.size ?? 'auto')}:n${String(body.n ?? 1)}:${String(body.quality ?? 'auto')}`;
}

/** `POST /v1/images/generations` and `POST /v1/images/edits`. */
export class Images extends APIResource {
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
    return submitTask(
      this.client,
      {
        path: 'v1/images/generations',
        what: 'images.generate',
        schema: TaskSubmissionSchema,
        defaultTimeout: DEFAULT_IMAGE_TIMEOUT_MS,
        durationKey: (body) => imageDurationKey('image_generation', body),
        body: () => parseInput(ImageGenerateParamsSchema, params, 'images.generate params'),
      },
      options,
    );
  }

  /**
   * Submit an image editing task on uploaded images (URLs or the records `uploads.image`
   * returned).
   *
   * @example
   * ```ts
   * const photo = await client.uploads.image('./photo.png');
   * const task = await client.images
   *   .edit({ model: 'omni-image', prompt: 'make it night', image: photo })
   *   .wait();
   * ```
   */
  edit(params: ImageEditParams, options?: RequestOptions): TaskPromise<TaskSubmission> {
    return submitTask(
      this.client,
      {
        path: 'v1/images/edits',
        what: 'images.edit',
        schema: TaskSubmissionSchema,
        defaultTimeout: DEFAULT_IMAGE_TIMEOUT_MS,
        durationKey: (body) => imageDurationKey('image_edit', body),
        body: () => {
          const issues: ValidationIssue[] = [];
          const url = (ref: ImageReference, path: string) => resolveReference(ref, 'url', path, issues);
          const { image, mask, ...rest } = params ?? ({} as ImageEditParams);
          const body = {
            ...rest,
            image: Array.isArray(image) ? image.map((ref, i) => url(ref, `image[${i}]`)) : url(image, 'image'),
            ...(mask !== undefined ? { mask: url(mask, 'mask') } : {}),
          };
          return parseInput(ImageEditBodySchema, body, 'images.edit params', issues);
        },
      },
      options,
    );
  }
}
