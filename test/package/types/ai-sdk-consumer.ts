// A strict TypeScript consumer of omnimedia/ai-sdk with the real `ai` types: compiled, not run.
import { experimental_generateVideo as generateVideo, generateImage } from 'ai';
import { OmniMedia, ValidationError } from 'omnimedia';
import { createOmniMedia, type OmniMediaImageProviderOptions, type OmniMediaProvider } from 'omnimedia/ai-sdk';

export async function aiSdk(): Promise<string> {
  // The client's options, as they are (any option the client has).
  const omni: OmniMediaProvider = createOmniMedia({ apiKey: 'sk', baseURL: 'https://media.example.com', maxRetries: 1, uploadCache: true });
  const shared = createOmniMedia({ client: new OmniMedia() });
  // @ts-expect-error a client, or options for one: not both
  createOmniMedia({ client: new OmniMedia(), apiKey: 'sk' });
  const { images } = await generateImage({
    model: omni.image('omni-image'),
    prompt: 'a lighthouse',
    n: 2,
    providerOptions: { omnimedia: { quality: 'high' } satisfies OmniMediaImageProviderOptions },
  });
  const { video } = await generateVideo({ model: shared.video('omni_flash'), prompt: 'a paper boat', duration: 8, resolution: '1920x1080' });
  const error: unknown = await generateVideo({ model: omni.video('omni_flash'), prompt: 'x', duration: 5 }).catch((e: unknown) => e);
  return `${images.length} ${video.mediaType} ${error instanceof ValidationError ? error.issues[0]?.path : ''}`;
}
