// createOmniMedia({ proxyURL }): the real `ai` package drives a keyless provider whose every API
// request goes through a real createProxy (omnimedia/proxy) in front of the mock service, which
// accepts only the proxy's key. The README's "With the AI SDK" promises this works.
import { experimental_generateVideo as generateVideo, generateImage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthenticationError } from 'omnimedia';
import { createOmniMedia } from 'omnimedia/ai-sdk';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { KEY, SESSION, leaks, startProxy, type RunningProxy } from '../proxy/helpers.ts';
import { fixture, photo } from '../testing/mock-helpers.ts';
import { isMp4, pngSize } from '../ai-sdk/setup.ts';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** What the provider's client sent and got: URL, headers, and the answer's text. */
interface Exchange {
  url: string;
  headers: Headers;
  credentials: RequestCredentials | undefined;
  answer: string;
}

describe('createOmniMedia({ proxyURL }) through a real proxy', () => {
  let mock: MockServer;
  let proxy: RunningProxy;
  const exchanges: Exchange[] = [];

  /** A keyless provider on the proxy; Node's fetch sends the cookie a browser would. */
  const provider = () =>
    createOmniMedia({
      proxyURL: `${proxy.url}/api/omnimedia`,
      defaultHeaders: { cookie: SESSION },
      logLevel: 'off',
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        exchanges.push({ url: String(input), headers: new Headers(init?.headers), credentials: init?.credentials, answer: await response.clone().text() });
        return response;
      },
    });

  beforeAll(async () => {
    mock = await startMockServer({ apiKeys: [KEY], durations: { pending: 50, image: 150, imageEdit: 150, video: 250, videoEdit: 250 } });
    proxy = await startProxy({ upstream: mock.url });
  });
  afterAll(async () => {
    await proxy.close();
    await mock.close();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    exchanges.length = 0;
  });

  /** Every API request went to the proxy, keyless, and nothing the page read holds the key. */
  function expectKeyOnlyOnTheProxySide() {
    const api = exchanges.filter((e) => new URL(e.url).pathname.includes('/v1/'));
    expect(api.length).toBeGreaterThan(0);
    for (const exchange of api) {
      expect(exchange.url.startsWith(`${proxy.url}/api/omnimedia/v1/`)).toBe(true);
      expect(exchange.headers.has('authorization')).toBe(false);
      expect(exchange.credentials).toBe('same-origin');
    }
    expect(leaks(exchanges.map((e) => `${e.url} ${[...e.headers].join(' ')} ${e.answer}`).join('\n'))).toEqual([]);
    // The mock accepts no other key: a request that reached it with another would be a 401 there.
    expect(mock.mock.requests.filter((r) => r.status === 401)).toEqual([]);
  }

  it('generateImage: an edit of file data (auto-uploaded through the proxy), the images as bytes', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', 'sk-from-the-environment');
    const omni = provider();
    expect(omni.client.hasApiKey).toBe(false);
    const uploadsBefore = mock.mock.uploads().length;
    const { images, providerMetadata } = await generateImage({
      model: omni.image('omni-image'),
      prompt: { text: 'make it night', images: [photo()] },
      size: '1024x1024',
      n: 2,
    });
    expect(images).toHaveLength(2);
    expect(pngSize(images[0]!.uint8Array)).toEqual([1024, 1024]);
    expect(mock.mock.uploads()).toHaveLength(uploadsBefore + 1);
    expect(providerMetadata.omnimedia).toMatchObject({ images: [{ url: expect.stringContaining('/files/results/') }, { url: expect.any(String) }] });
    const paths = exchanges.map((e) => `${new URL(e.url).pathname}`);
    expect(paths.filter((p) => p === '/api/omnimedia/v1/uploads/images')).toHaveLength(1);
    expect(paths.filter((p) => p === '/api/omnimedia/v1/images/edits')).toHaveLength(1);
    expectKeyOnlyOnTheProxySide();
  });

  it('experimental_generateVideo: a reference image auto-uploaded through the proxy, the MP4 as bytes', async () => {
    const omni = provider();
    const uploadsBefore = mock.mock.uploads().length;
    const { video, providerMetadata } = await generateVideo({
      model: omni.video('omni_flash'),
      prompt: { image: fixture('tiny.jpg'), text: 'the cat jumps' },
      duration: 4,
    });
    expect(isMp4(video.uint8Array)).toBe(true);
    expect(mock.mock.uploads()).toHaveLength(uploadsBefore + 1);
    expect(providerMetadata.omnimedia).toMatchObject({ status: 'completed', normalized_model: 'omni_flash_components_720p_4s' });
    const paths = exchanges.map((e) => new URL(e.url).pathname);
    expect(paths.filter((p) => p === '/api/omnimedia/v1/uploads/images')).toHaveLength(1);
    expect(paths.filter((p) => p === '/api/omnimedia/v1/video/generate')).toHaveLength(1);
    expectKeyOnlyOnTheProxySide();
  });

  it('experimental_generateVideo in the AI SDK’s poll mode: doStart and doStatus through the proxy', async () => {
    const omni = provider();
    const { video } = await generateVideo({ model: omni.video('omni_flash'), prompt: 'a paper boat', duration: 4, poll: { intervalMs: 100 } });
    expect(isMp4(video.uint8Array)).toBe(true);
    const paths = exchanges.map((e) => new URL(e.url).pathname);
    expect(paths.filter((p) => p.startsWith('/api/omnimedia/v1/tasks/')).length).toBeGreaterThan(0);
    expectKeyOnlyOnTheProxySide();
  });

  it('a proxy that refuses the page (no session) is the client’s AuthenticationError, from generateImage', async () => {
    const omni = createOmniMedia({ proxyURL: `${proxy.url}/api/omnimedia`, logLevel: 'off' });
    await expect(generateImage({ model: omni.image('omni-image'), prompt: 'a fox' })).rejects.toBeInstanceOf(AuthenticationError);
  });
});
