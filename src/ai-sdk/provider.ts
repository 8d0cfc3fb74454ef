/**
 * `createOmniMedia`: the AI SDK provider, on a client of ours (made from the options, or the
 * one given). Models share the client, so all their waits share its scheduler and budget.
 */
import type { EmbeddingModelV4, ImageModelV4, LanguageModelV4, ProviderV4 } from '@ai-sdk/provider';
import { OmniMedia, ValidationError, type ClientOptions } from 'omnimedia';
import { OmniMediaImageModel, type OmniMediaImageModelId } from './image-model.ts';
import { OmniMediaVideoModel, type OmniMediaVideoModelId } from './video-model.ts';

/**
 * Options of `createOmniMedia`: the client's own options (`new OmniMedia(options)`, passed as
 * they are, so every client option works here), or `{ client }` for a client you already have.
 *
 * @example
 * ```ts
 * const omni = createOmniMedia({ apiKey: process.env.OMNIMEDIA_API_KEY, baseURL: 'https://media.example.com', maxRetries: 3 });
 * const same = createOmniMedia({ client: new OmniMedia() });
 * ```
 */
export type OmniMediaProviderSettings =
  | (ClientOptions & {
      /** Not with client options: give one or the other. */
      client?: never;
    })
  | {
      /** A client you already have: the models share its scheduler, budget and learning. */
      client: OmniMedia;
    };

/**
 * The provider: `image(model)` and `video(model)` (also as `imageModel` and `videoModel`, the
 * names `createProviderRegistry` and `customProvider` use). It has no language or embedding
 * models: asking for one throws `ValidationError`.
 *
 * @example
 * ```ts
 * const { images } = await generateImage({ model: omni.image('omni-image'), prompt: 'a lighthouse', n: 2 });
 * const { videos } = await generateVideo({ model: omni.video('omni_flash'), prompt: 'a paper boat', duration: 8 });
 * ```
 */
export interface OmniMediaProvider extends ProviderV4 {
  /** An image model (`generateImage`). */
  image(modelId: OmniMediaImageModelId): OmniMediaImageModel;
  /** The same as `image`. */
  imageModel(modelId: OmniMediaImageModelId): OmniMediaImageModel;
  /** A video model (`experimental_generateVideo`, `experimental_startVideo`). */
  video(modelId: OmniMediaVideoModelId): OmniMediaVideoModel;
  /** The same as `video`. */
  videoModel(modelId: OmniMediaVideoModelId): OmniMediaVideoModel;
  /** The client every model of this provider uses (for uploads, `tasks.wait`, callbacks...). */
  readonly client: OmniMedia;
}

function noSuchModel(kind: string, modelId: string): never {
  throw new ValidationError(
    [{ path: 'modelId', message: `the service makes images and videos, it has no ${kind} (asked for ${modelId}): use image() or video()` }],
    'omnimedia provider',
  );
}

/**
 * An AI SDK provider for the service: `omni.image(model)` for `generateImage`, `omni.video(model)`
 * for `experimental_generateVideo`, on the typed client (local validation, auto-upload, its
 * cadence and retry rules). See the guide [The AI SDK](https://github.com/omnimedia/omnimedia/blob/main/docs/ai-sdk.md).
 *
 * @example
 * ```ts
 * import { generateImage, experimental_generateVideo as generateVideo } from 'ai';
 * import { createOmniMedia } from 'omnimedia/ai-sdk';
 *
 * const omni = createOmniMedia(); // OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL from the environment
 * const { images } = await generateImage({ model: omni.image('omni-image'), prompt: 'a lighthouse', size: '1536x1024', n: 2 });
 * const { videos } = await generateVideo({ model: omni.video('omni_flash'), prompt: 'a paper boat', duration: 8, resolution: '1920x1080' });
 * ```
 */
export function createOmniMedia(settings: OmniMediaProviderSettings = {}): OmniMediaProvider {
  if (settings === null || typeof settings !== 'object')
    throw new ValidationError([{ path: '', message: 'must be the client’s options or { client }' }], 'createOmniMedia options');
  const given = (settings as { client?: unknown }).client;
  // By shape, not instanceof: an app that loads the ESM and the CJS build has two OmniMedia classes.
  if (given !== undefined && typeof (given as Partial<OmniMedia> | null)?.videos?.generate !== 'function')
    throw new ValidationError([{ path: 'client', message: 'must be an OmniMedia client' }], 'createOmniMedia options');
  if (given !== undefined && Object.keys(settings).length > 1)
    throw new ValidationError([{ path: 'client', message: 'give either a client or client options, not both' }], 'createOmniMedia options');
  const client = (given as OmniMedia | undefined) ?? new OmniMedia(settings as ClientOptions);
  const image = (modelId: OmniMediaImageModelId) => new OmniMediaImageModel(modelId, client);
  const video = (modelId: OmniMediaVideoModelId) => new OmniMediaVideoModel(modelId, client);
  return {
    specificationVersion: 'v4',
    client,
    image,
    imageModel: image,
    video,
    videoModel: video,
    languageModel: (modelId: string): LanguageModelV4 => noSuchModel('language models', modelId),
    embeddingModel: (modelId: string): EmbeddingModelV4 => noSuchModel('embedding models', modelId),
  } satisfies OmniMediaProvider & { imageModel(modelId: string): ImageModelV4 };
}
