/**
 * `omnimedia/ai-sdk`: an AI SDK provider (`@ai-sdk/provider` v4 models) on the typed client,
 * for `generateImage` and `experimental_generateVideo`. See the guide [The AI SDK](https://github.com/omnimedia/omnimedia/blob/main/docs/ai-sdk.md).
 *
 * @module omnimedia/ai-sdk
 */
export { createOmniMedia, type OmniMediaProvider, type OmniMediaProviderSettings } from './provider.ts';
export type { OmniMediaImageModel, OmniMediaImageModelId, OmniMediaImageProviderOptions } from './image-model.ts';
export type { OmniMediaVideoModel, OmniMediaVideoModelId, OmniMediaVideoProviderOptions } from './video-model.ts';
export type { OmniMediaImageMetadata, OmniMediaTaskRecord, OmniMediaVideoMetadata } from './results.ts';
