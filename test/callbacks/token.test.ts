import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { OmniMedia, OmniMediaError } from 'omnimedia';
import { CALLBACK_TOKEN_PARAM } from '../../src/callbacks/token.ts';
import { CallbackTokens } from '../../src/callbacks/token.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';

const server = useMsw();

function tokenOf(url: string): string | null {
  return new URL(url).searchParams.get(CALLBACK_TOKEN_PARAM);
}

describe('callback tokens', () => {
  it('adds a token derived from the secret, not the secret itself, and keeps the caller\'s query and fragment', async () => {
    const tokens = new CallbackTokens('s3cret-value');
    const url = await tokens.addTo('https://me.test/cb?a=1&b=x%20y&c#frag');
    expect(url).toMatch(/^https:\/\/me\.test\/cb\?a=1&b=x%20y&c&omnimedia_token=[A-Za-z0-9_-]{43}#frag$/);
    expect(url).not.toContain('s3cret-value');
    // Stable for a secret, different across secrets.
    expect(tokenOf(await tokens.addTo('https://me.test/other'))).toBe(tokenOf(url));
    expect(tokenOf(await new CallbackTokens('another').addTo('https://me.test/cb'))).not.toBe(tokenOf(url));
  });

  it('replaces a token already in the URL instead of adding a second one', async () => {
    const tokens = new CallbackTokens('s');
    const once = await tokens.addTo('https://me.test/cb?x=1');
    const twice = await tokens.addTo(once);
    expect(new URL(twice).searchParams.getAll(CALLBACK_TOKEN_PARAM)).toHaveLength(1);
    expect(twice).toBe(once);
  });

  it('accepts the token of any listed secret (rotation); new URLs use the first', async () => {
    const old = new CallbackTokens('old-secret');
    const rotated = new CallbackTokens(['new-secret', 'old-secret']);
    const oldUrl = await old.addTo('https://me.test/cb');
    const newUrl = await rotated.addTo('https://me.test/cb');
    expect(tokenOf(newUrl)).toBe(tokenOf(await new CallbackTokens('new-secret').addTo('https://me.test/cb')));
    expect(await rotated.accepts(oldUrl)).toBe(true);
    expect(await rotated.accepts(newUrl)).toBe(true);
    // Once the old secret is dropped, its URLs stop working.
    expect(await new CallbackTokens('new-secret').accepts(oldUrl)).toBe(false);
  });

  it('rejects a missing, wrong, truncated, padded or repeated token; takes a path with its query', async () => {
    const tokens = new CallbackTokens('s');
    const good = tokenOf(await tokens.addTo('https://me.test/cb'))!;
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${good}`)).toBe(true);
    expect(await tokens.accepts('/cb')).toBe(false);
    expect(await tokens.accepts(undefined)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${good.slice(0, -1)}`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${good}A`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${good}&${CALLBACK_TOKEN_PARAM}=x`)).toBe(false);
    expect(await tokens.accepts(`/cb?s=s`)).toBe(false);
  });

  it('refuses an empty secret or an empty list when the client is made', () => {
    expect(() => new OmniMedia({ baseURL: BASE_URL, callbackSecret: '' })).toThrow(OmniMediaError);
    expect(() => new OmniMedia({ baseURL: BASE_URL, callbackSecret: [] })).toThrow(/callbackSecret/);
  });

  it('puts the token on the callback_url of all four submissions, and leaves bodies without one alone', async () => {
    const bodies: Record<string, unknown>[] = [];
    const record = async ({ request }: { request: Request }) => {
      bodies.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json({ task_id: `t${bodies.length}`, status: 'pending' }, { status: 200 });
    };
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, record),
      http.post(`${BASE_URL}/v1/images/edits`, record),
      http.post(`${BASE_URL}/v1/video/generate`, record),
      http.post(`${BASE_URL}/v1/video/edits`, record),
    );
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, callbackSecret: ['current', 'previous'] });
    const callback_url = 'https://me.test/hooks/omnimedia?tenant=42';
    await client.images.generate({ model: 'm', prompt: 'p', callback_url });
    await client.images.edit({ model: 'm', prompt: 'p', image: 'https://u.test/a.png', callback_url });
    await client.videos.generate({ prompt: 'p', callback_url });
    await client.videos.edit({ prompt: 'p', input_video: 'up_1', callback_url });
    await client.images.generate({ model: 'm', prompt: 'p' });
    const expected = await client.callbacks.url(callback_url);
    expect(expected).toMatch(/^https:\/\/me\.test\/hooks\/omnimedia\?tenant=42&omnimedia_token=/);
    expect(bodies.slice(0, 4).map((b) => b.callback_url)).toEqual([expected, expected, expected, expected]);
    expect(bodies[4]).not.toHaveProperty('callback_url');
    // The token is the first secret's.
    expect(tokenOf(expected)).toBe(tokenOf(await new CallbackTokens('current').addTo(callback_url)));
  });

  it('sends callback_url untouched when the client has no secret', async () => {
    let body: Record<string, unknown> | undefined;
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ task_id: 't', status: 'pending' });
      }),
    );
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
    await client.images.generate({ model: 'm', prompt: 'p', callback_url: 'https://me.test/cb?a=1' });
    expect(body?.callback_url).toBe('https://me.test/cb?a=1');
    expect(await client.callbacks.url('https://me.test/cb')).toBe('https://me.test/cb');
  });
});
