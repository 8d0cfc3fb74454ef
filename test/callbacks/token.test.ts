import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

describe('callback tokens: known values (computed with openssl, not with the code under test)', () => {
  // printf 'omnimedia callback token v2\n<nonce>' | openssl dgst -sha256 -hmac s3cret-value -binary | base64 | tr '+/' '-_' | tr -d =
  const SECRET = 's3cret-value';
  // 16 bytes fb ff bf ... fb: base64 `+/+/...+w==`, so the URL-safe alphabet and the padding's removal show.
  const NONCE_BYTES = [...Array.from({ length: 5 }, () => [0xfb, 0xff, 0xbf]).flat(), 0xfb];
  const NONCE = '-_-_-_-_-_-_-_-_-_-_-w';
  const PROOF = 'yLKt8xuLfTlQX_JU1mW4Hy8e6z5AlM18agtcCOIJywk';
  // printf 'omnimedia callback token v1' | openssl dgst -sha256 -hmac s3cret-value -binary | base64 | tr '+/' '-_' | tr -d =
  const LEGACY = 'uCzTPfnygNcqNQ45OimG8cNq0ApDqG4-w0bXUapqiL0';
  /** MACs by SECRET of nonces that are not 22 base64url characters. */
  const MALFORMED: Record<string, string> = {
    xxxxxxxxxxxxxxxxxxxxx: 'UnX2rU9bOWodE0G_VVODm2_sFl5A1-7ANTbvE-_HhBI',
    xxxxxxxxxxxxxxxxxxxxxxx: 'jr8vEKjbQ-rhpyg2lSedeMe2v_R-KbYCJTw2Hv5FmQE',
    'xxxxxxxxxxxxxxxxxxxxx!': 'SxLOSGTdNkkvaJGqwBEavuQLYvapuoNHQgcqk2cpbsw',
  };
  const at = (token: string) => `/cb?${CALLBACK_TOKEN_PARAM}=${token}`;

  afterEach(() => vi.restoreAllMocks());

  it('mint: the nonce is 16 random bytes in base64url, the proof HMAC-SHA-256(secret, label + nonce); the URL is exactly the caller’s plus the token', async () => {
    vi.spyOn(crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      (array as unknown as Uint8Array).set(NONCE_BYTES);
      return array;
    });
    const tokens = new CallbackTokens(SECRET);
    expect(await tokens.mint('https://me.test/cb')).toEqual({ url: `https://me.test/cb?${CALLBACK_TOKEN_PARAM}=${NONCE}.${PROOF}`, nonce: NONCE });
    expect(await tokens.addTo('https://me.test/cb?a=1&&b=2&omnimedia_token_id=7')).toBe(
      `https://me.test/cb?a=1&b=2&omnimedia_token_id=7&${CALLBACK_TOKEN_PARAM}=${NONCE}.${PROOF}`,
    );
  });

  it('check: a token of the secret made elsewhere (another process) is accepted; a list of secrets takes it from any', async () => {
    expect(await new CallbackTokens(SECRET).check(at(`${NONCE}.${PROOF}`))).toEqual({ nonce: NONCE });
    expect(await new CallbackTokens(['newer', SECRET]).check(`https://me.test${at(`${NONCE}.${PROOF}`)}`)).toEqual({ nonce: NONCE });
    expect(await new CallbackTokens('s3cret-valuE').check(at(`${NONCE}.${PROOF}`))).toBe(false);
  });

  it('a token of the first form has a known value too, and `learn` is told it once derived', async () => {
    const learned: string[] = [];
    const tokens = new CallbackTokens([SECRET, 'older'], (token) => learned.push(token));
    expect(await tokens.check(at(LEGACY))).toEqual({ nonce: undefined });
    expect(learned[0]).toBe(LEGACY);
    expect(learned).toHaveLength(2);
  });

  it('a nonce that is not 22 base64url characters is refused, even with the right MAC for it', async () => {
    const tokens = new CallbackTokens(SECRET);
    for (const [nonce, proof] of Object.entries(MALFORMED)) expect([nonce, await tokens.check(at(`${nonce}.${proof}`))]).toEqual([nonce, false]);
  });

  it('a token made here is checked without crypto (its proof is kept); one made elsewhere is computed', async () => {
    const tokens = new CallbackTokens(SECRET);
    const { url, nonce } = await tokens.mint('https://me.test/cb');
    const sign = vi.spyOn(crypto.subtle, 'sign');
    expect(await tokens.check(url)).toEqual({ nonce });
    expect(sign).not.toHaveBeenCalled();
    expect(await tokens.check(at(`${NONCE}.${PROOF}`))).toEqual({ nonce: NONCE });
    expect(sign).toHaveBeenCalledTimes(1);
  });

  it('replaces a token that comes first in the query too', async () => {
    const url = await new CallbackTokens(SECRET).addTo(`https://me.test/cb?${CALLBACK_TOKEN_PARAM}=old&x=1`);
    expect(new URL(url).searchParams.getAll(CALLBACK_TOKEN_PARAM)).toHaveLength(1);
    expect(url).toMatch(new RegExp(`^https://me\\.test/cb\\?x=1&${CALLBACK_TOKEN_PARAM}=[^&]+$`));
  });

  it('a URL that cannot be read is refused, not thrown', async () => {
    expect(await new CallbackTokens(SECRET).check('http://[::1')).toBe(false);
  });

  it('a secret the platform refuses fails its first use, not the process: no unhandled rejection at construction', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const tokens = new CallbackTokens('', () => {});
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(tokens.mint('https://me.test/cb')).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});

