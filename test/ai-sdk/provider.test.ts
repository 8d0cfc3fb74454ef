// createOmniMedia: the client's options as they are, or an existing client; the provider in
// the AI SDK's registry; no language or embedding models.
import { createProviderRegistry, generateImage } from 'ai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { OmniMedia, ValidationError, type ClientOptions } from 'omnimedia';
import { createOmniMedia, type OmniMediaProviderSettings } from 'omnimedia/ai-sdk';
import { API_KEY, BASE_URL, failure, recordingFetch, requests, run, useAiSdk } from './setup.ts';

const ctx = useAiSdk();

describe('createOmniMedia', () => {
  it('passes the client options to new OmniMedia as they are', async () => {
    const recorded = recordingFetch();
    let headers: Headers | undefined;
    const omni = createOmniMedia({
      apiKey: API_KEY,
      baseURL: BASE_URL,
      logLevel: 'off',
      defaultHeaders: { 'x-app': 'demo' },
      fetch: (input, init) => {
        headers ??= new Headers(init?.headers);
        return recorded.fetch(input, init);
      },
    });
    await run(generateImage({ model: omni.image('omni-image'), prompt: 'a fox' }));
    expect(headers?.get('x-app')).toBe('demo');
    expect(recorded.bodies).toHaveLength(1);
    expect(omni.client.baseURL).toBe(`${BASE_URL}/`);
  });

  it('its settings type is ClientOptions itself: an option the client gains is one the provider takes', () => {
    expectTypeOf<ClientOptions>().toExtend<OmniMediaProviderSettings>();
    expectTypeOf<{ client: OmniMedia }>().toExtend<OmniMediaProviderSettings>();
    // @ts-expect-error a client, or options for one: not both
    const both: OmniMediaProviderSettings = { client: ctx.omni.client, apiKey: 'k' };
    expect(both).toBeDefined();
  });

  it('uses a client you already have: its uploads, waits and callbacks are the models’', async () => {
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off' });
    const omni = createOmniMedia({ client });
    expect(omni.client).toBe(client);
    const result = await run(generateImage({ model: omni.image('omni-image'), prompt: 'a fox' }));
    expect(result.images).toHaveLength(1);
    expect(requests(ctx.mock, 'POST', '/v1/images/generations')).toHaveLength(1);
  });

  it('bad settings are a ValidationError naming them', () => {
    expect(() => createOmniMedia({ client: {} as OmniMedia })).toThrow(ValidationError);
    expect(() => createOmniMedia({ client: ctx.omni.client, apiKey: 'k' } as never)).toThrow(/either a client or client options/);
    expect(() => createOmniMedia({ baseURL: 'ftp://nope', apiKey: 'k' })).toThrow(ValidationError);
    expect(() => createOmniMedia(null as never)).toThrow(ValidationError);
    expect(() => createOmniMedia('sk-key' as never)).toThrow(ValidationError);
  });

  it('works in the AI SDK’s provider registry; it has no language or embedding models', async () => {
    const registry = createProviderRegistry({ omnimedia: ctx.omni });
    const result = await run(generateImage({ model: registry.imageModel('omnimedia:omni-image'), prompt: 'a fox' }));
    expect(result.images).toHaveLength(1);
    expect(registry.videoModel('omnimedia:omni_flash').modelId).toBe('omni_flash');
    expect(() => ctx.omni.languageModel('gpt')).toThrow(ValidationError);
    expect(() => ctx.omni.embeddingModel('e5')).toThrow(/no embedding models/);
  });

  it('a keyless provider fails locally, before any request, with the client’s error', async () => {
    const keyless = createOmniMedia({ baseURL: BASE_URL, apiKey: undefined, logLevel: 'off' });
    const error = await failure(generateImage({ model: keyless.image('omni-image'), prompt: 'a fox' }));
    expect(error).toMatchObject({ name: 'AuthenticationError', status: undefined });
    expect(ctx.mock.requests).toEqual([]);
  });
});
