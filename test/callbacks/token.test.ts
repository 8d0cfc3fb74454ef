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
  it('adds a token of its own to each URL: a fresh nonce and its MAC by the secret, never the secret; the caller\'s query and fragment kept', async () => {
    const tokens = new CallbackTokens('s3cret-value');
    const { url, nonce } = await tokens.mint('https://me.test/cb?a=1&b=x%20y&c#frag');
    expect(url).toMatch(/^https:\/\/me\.test\/cb\?a=1&b=x%20y&c&omnimedia_token=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}#frag$/);
    expect(url).not.toContain('s3cret-value');
    expect(tokenOf(url)?.split('.')[0]).toBe(nonce);
    // Each URL its own token (was: one token for every task of a secret).
    const other = await tokens.mint('https://me.test/cb');
    expect(other.nonce).not.toBe(nonce);
    expect(await tokens.check(url)).toEqual({ nonce });
    expect(await tokens.check(other.url)).toEqual({ nonce: other.nonce });
    // Another secret's MAC for the same nonce is not ours.
    expect(await new CallbackTokens('another').check(url)).toBe(false);
  });

  it('replaces a token already in the URL instead of adding a second one', async () => {
    const tokens = new CallbackTokens('s');
    const once = await tokens.addTo('https://me.test/cb?x=1');
    const twice = await tokens.addTo(once);
    expect(new URL(twice).searchParams.getAll(CALLBACK_TOKEN_PARAM)).toHaveLength(1);
    expect(twice).toMatch(/^https:\/\/me\.test\/cb\?x=1&omnimedia_token=[^&]+$/);
  });

  it('accepts the token of any listed secret (rotation); new URLs use the first', async () => {
    const old = new CallbackTokens('old-secret');
    const rotated = new CallbackTokens(['new-secret', 'old-secret']);
    const oldUrl = await old.addTo('https://me.test/cb');
    const newUrl = await rotated.addTo('https://me.test/cb');
    expect(await new CallbackTokens('new-secret').accepts(newUrl)).toBe(true);
    expect(await old.accepts(newUrl)).toBe(false);
    expect(await rotated.accepts(oldUrl)).toBe(true);
    expect(await rotated.accepts(newUrl)).toBe(true);
    // Once the old secret is dropped, its URLs stop working.
    expect(await new CallbackTokens('new-secret').accepts(oldUrl)).toBe(false);
  });

  it('accepts a token of the first form (one per secret, made before tokens were per submission), bound to no task', async () => {
    const secret = 's3cret-value';
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const legacy = Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode('omnimedia callback token v1'))).toString('base64url');
    const tokens = new CallbackTokens(secret);
    expect(await tokens.check(`/cb?${CALLBACK_TOKEN_PARAM}=${legacy}`)).toEqual({ nonce: undefined });
    expect(await new CallbackTokens('other').check(`/cb?${CALLBACK_TOKEN_PARAM}=${legacy}`)).toBe(false);
  });

  it('rejects a missing, wrong, truncated, padded or repeated token, or one whose nonce was changed; takes a path with its query', async () => {
    const tokens = new CallbackTokens('s');
    const good = tokenOf(await tokens.addTo('https://me.test/cb'))!;
    const [nonce, proof] = good.split('.') as [string, string];
    const flip = (text: string) => `${text.slice(0, -1)}${text.endsWith('A') ? 'B' : 'A'}`;
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${good}`)).toBe(true);
    expect(await tokens.accepts('/cb')).toBe(false);
    expect(await tokens.accepts(undefined)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${good.slice(0, -1)}`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${good}A`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${flip(good)}`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${flip(nonce)}.${proof}`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=${nonce}`)).toBe(false);
    expect(await tokens.accepts(`/cb?${CALLBACK_TOKEN_PARAM}=.${proof}`)).toBe(false);
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
    const sent = bodies.slice(0, 4).map((b) => b.callback_url as string);
    for (const url of sent) expect(url).toMatch(/^https:\/\/me\.test\/hooks\/omnimedia\?tenant=42&omnimedia_token=[^&]+$/);
    expect(new Set(sent.map(tokenOf)).size).toBe(4); // a token per submission
    expect(bodies[4]).not.toHaveProperty('callback_url');
    // The token is the first secret's, and the journal keeps its nonce beside the task.
    for (const [i, url] of sent.entries()) {
      expect(await new CallbackTokens('current').check(url)).toEqual({ nonce: tokenOf(url)?.split('.')[0] });
      expect(client.journal.find?.(`t${i + 1}`)).toMatchObject({ task_id: `t${i + 1}`, callback_nonce: tokenOf(url)?.split('.')[0] });
    }
    expect(await new CallbackTokens('previous').accepts(sent[0] as string)).toBe(false);
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
