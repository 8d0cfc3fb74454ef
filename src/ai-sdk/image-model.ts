/**
 * `omni.image(model)`: an AI SDK image model (v4) on the client's `images.generate` and
 * `images.edit`: checked by the client's rules before anything is sent, file parts uploaded
 * first, the wait on the client's poller, the images downloaded as bytes.
 */
import type { ImageModelV4, ImageModelV4CallOptions, ImageModelV4Result } from '@ai-sdk/provider';
import type { ImageEditParams, ImageGenerateParams, OmniMedia, ValidationIssue } from 'omnimedia';
import type { ImageQuality } from 'omnimedia/schemas';
import { headersWarnings, providerParams, readCall, throwIssues, unsupportedWarnings } from './call-options.ts';
import { fileReference } from './files.ts';
import { downloadOutputs, responseInfo, taskRecord, type OmniMediaImageMetadata } from './results.ts';

/**
 * An image model of the service, e.g. `omni-image`.
 *
 * @example
 * ```ts
 * const model: OmniMediaImageModelId = 'omni-image';
 * await generateImage({ model: omni.image(model), prompt: 'a lighthouse at dawn' });
 * ```
 */
export type OmniMediaImageModelId = 'omni-image' | (string & {});

/**
 * `providerOptions.omnimedia` of `generateImage`: request fields the AI SDK has no option for,
 * checked by the client like the others.
 *
 * @example
 * ```ts
 * await generateImage({
 *   model: omni.image('omni-image'),
 *   prompt: 'a lighthouse at dawn',
 *   providerOptions: { omnimedia: { quality: 'high' } satisfies OmniMediaImageProviderOptions },
 * });
 * ```
 */
export interface OmniMediaImageProviderOptions {
  /** `low`, `medium`, `high` or `auto` (the default). */
  quality?: ImageQuality;
  /** The service POSTs the finished task here too (the generation still waits for it itself). */
  callback_url?: string;
}

/** Images per task (spec 4.1: `n` is 1 to 4); the AI SDK splits a larger `n` into several tasks. */
const MAX_IMAGES_PER_TASK = 4;

const UNSUPPORTED = {
  aspectRatio: 'the service takes a size (WxH), not an aspect ratio: pass size',
  seed: 'the service takes no seed',
};

/**
 * The image model `omni.image(modelId)` returns: an AI SDK `ImageModelV4`.
 *
 * @example
 * ```ts
 * const { images } = await generateImage({ model: omni.image('omni-image'), prompt: 'a fox', n: 2 });
 * ```
 */
export class OmniMediaImageModel implements ImageModelV4 {
  /** The AI SDK's image model interface, version 4. */
  readonly specificationVersion = 'v4';
  /** `omnimedia.image`, for the AI SDK's logs. */
  readonly provider = 'omnimedia.image';
  /** The model sent with each task. */
  readonly modelId: string;
  /** 4: the service makes 1 to 4 images per task. */
  readonly maxImagesPerCall = MAX_IMAGES_PER_TASK;
  /** Image editing: `prompt: { text, images }`. */
  readonly supportsFileInputs = true;
  /** A mask for the edit: `prompt: { text, images, mask }`. */
  readonly supportsMaskInputs = true;
  readonly #client: OmniMedia;

  /** @internal Made by `omni.image(modelId)`. */
  constructor(modelId: string, client: OmniMedia) {
    this.modelId = modelId;
    this.#client = client;
  }

  /** The request of one call: an edit when there are files or a mask, else a generation. */
  #plan(options: ImageModelV4CallOptions) {
    const warnings = [...unsupportedWarnings(options, UNSUPPORTED), ...headersWarnings(options.headers)];
    const params = {
      ...providerParams(options.providerOptions),
      model: this.modelId,
      prompt: options.prompt,
      n: options.n,
      ...(options.size !== undefined ? { size: options.size } : {}),
    } as ImageGenerateParams;
    const files = options.files ?? [];
    if (files.length === 0 && options.mask === undefined) return { warnings, signal: options.abortSignal, params, edit: undefined };
    const issues: ValidationIssue[] = [];
    const image = files.map((file, i) => fileReference(file, `files[${i}]`, issues));
    const mask = options.mask && fileReference(options.mask, 'mask', issues);
    throwIssues(issues, 'omnimedia image call');
    const edit: ImageEditParams = { ...params, image, ...(mask !== undefined ? { mask } : {}) };
    return { warnings, signal: options.abortSignal, params, edit };
  }

  /**
   * Submit one task (`images.edit` when there are files or a mask, else `images.generate`),
   * wait for it, and download its images. Called by `generateImage`.
   */
  async doGenerate(options: ImageModelV4CallOptions): Promise<ImageModelV4Result> {
    const { warnings, signal, params, edit } = readCall(() => this.#plan(options), 'omnimedia image call');
    const timestamp = new Date();
    const submitted = edit ? this.#client.images.edit(edit, signal ? { signal } : {}) : this.#client.images.generate(params, signal ? { signal } : {});
    const task = await submitted.wait(signal ? { signal } : {});
    const outputs = await downloadOutputs(this.#client, task, signal);
    return {
      images: outputs.map((output) => output.data),
      warnings,
      // The AI SDK keeps `images` (one entry per image) at the top of its result, the whole
      // record per call (`result.calls[i].providerMetadata`).
      providerMetadata: { omnimedia: { ...taskRecord(task), images: outputs.map(({ url }) => ({ task_id: task.task_id, url })) } satisfies OmniMediaImageMetadata },
      response: responseInfo(timestamp, task, this.modelId),
    };
  }
}
