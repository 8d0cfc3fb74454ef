// "The key stays on the server", against an upstream that echoes every request header back in
// its status line, its headers and its body (with JSON escapes), on success and on errors, and
// sets cookies. The page's whole raw answer is searched for the key in every form.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIError, OmniMedia } from 'omnimedia';
import { mediaBytes } from '../helpers/media-bytes.ts';
import { portBelowEphemeralRange } from '../helpers/ports.ts';
import { secretFormsIn } from '../helpers/secret-forms.ts';
import { KEY, SESSION, leaks, rawRequest, startProxy, startRecorder, type Mode, type Recorded, type RunningProxy } from './helpers.ts';

type Shape = 'json' | 'escaped-json' | 'text';
let status = 200;
let shape: Shape = 'json';

/** Echo everything the proxy sent, everywhere it could reach the page. */
function echo(request: Recorded, res: ServerResponse): void {
  const auth = String(request.headers.authorization ?? 'none');
  const seen: IncomingHttpHeaders = request.headers;
  res.statusMessage = `Echo ${auth}`;
  res.setHeader('set-cookie', ['upstream_session=1; Path=/; HttpOnly', `leak=${encodeURIComponent(auth)}`]);
  res.setHeader('x-echo-headers', encodeURIComponent(JSON.stringify(seen)));
  res.setHeader('x-request-id', `req ${auth}`);
  res.setHeader('www-authenticate', auth);
  res.setHeader('retry-after', '1');
  res.setHeader('connection', 'keep-alive, x-secret');
  res.setHeader('x-secret', auth);
  const task = { task_id: 'task_echo', status: 'pending', echoed: seen, nested: [{ deeper: { authorization: auth } }], [auth]: 'as a key' };
  let body = JSON.stringify(task);
  if (shape === 'escaped-json') body = body.replaceAll('/', '\\/').replace(/"Bearer /g, '"\\u0042earer ');
  if (shape === 'text') body = `<html>upstream error, you sent: ${auth}</html>`;
  res.writeHead(status, { 'content-type': shape === 'text' ? 'text/html' : 'application/json' }).end(body);
}

const PNG = mediaBytes('png');

function multipart(bytes: Uint8Array, filename = 'photo.png'): { body: Buffer; type: string } {
  const boundary = '----page-form-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`);
  return { body: Buffer.concat([head, Buffer.from(bytes), Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

/** The page's credentials, every one of which must stop at the proxy. */
const PAGE_CREDENTIALS = [`Cookie: ${SESSION}; other=1`, 'Authorization: Bearer page-own-token', 'X-Api-Key: page-api-key', 'Proxy-Authorization: Basic cGFnZTpwYXNz'];

const requests: [string, (port: number) => string | Buffer][] = [
  [
    'a submission',
    (port) => {
      const body = JSON.stringify({ model: 'omni-image', prompt: 'a fox' });
      return `POST /api/omnimedia/v1/images/generations HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${PAGE_CREDENTIALS.join('\r\n')}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    },
  ],
  [
    'an upload',
    (port) => {
      const { body, type } = multipart(PNG);
      return Buffer.concat([
        Buffer.from(`POST /api/omnimedia/v1/uploads/images HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${PAGE_CREDENTIALS.join('\r\n')}\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
        body,
      ]);
    },
  ],
  ['a task query', (port) => `GET /api/omnimedia/v1/tasks/task_echo HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${PAGE_CREDENTIALS.join('\r\n')}\r\nConnection: close\r\n\r\n`],
];

describe.each(['node', 'fetch'] as Mode[])('the key stays on the server (%s handler)', (mode) => {
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  let proxy: RunningProxy;

  beforeAll(async () => {
    upstream = await startRecorder(echo);
    proxy = await startProxy({ upstream: upstream.url }, mode);
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  describe.each([200, 401, 500, 502] as const)('upstream answers %i', (code) => {
    it.each(requests)('%s: no status line, header or body the page gets holds the key; no upstream cookie passes', async (_name, build) => {
      for (const form of ['json', 'escaped-json', 'text'] as Shape[]) {
        status = code;
        shape = form;
        const answer = await rawRequest(proxy.port, build(proxy.port));
        expect(upstream.requests.length).toBeGreaterThan(0);
        expect(leaks(answer.raw), `${form}: ${answer.raw}`).toEqual([]);
        expect(answer.headers['set-cookie']).toBeUndefined();
        expect(answer.headers['www-authenticate']).toBeUndefined();
        expect(answer.headers['x-secret']).toBeUndefined();
        expect(answer.headers['x-echo-headers']).toBeUndefined();
        if (form === 'text' && code === 200) expect(answer.status).toBe(502); // a success that is not JSON: a bad gateway
        else expect(answer.status).toBe(code);
        if (form !== 'text') expect(JSON.parse(answer.body)).toMatchObject({ task_id: 'task_echo' });
      }
    });
  });

  it('the page\u2019s Cookie, Authorization, X-Api-Key and Proxy-Authorization never reach the service; the key goes with submissions and uploads only', async () => {
    status = 200;
    shape = 'json';
    upstream.requests.length = 0;
    for (const [, build] of requests) await rawRequest(proxy.port, build(proxy.port));
    expect(upstream.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'GET']);
    for (const request of upstream.requests) {
      expect(request.headers.cookie).toBeUndefined();
      expect(request.headers['x-api-key']).toBeUndefined();
      expect(request.headers['proxy-authorization']).toBeUndefined();
      expect(JSON.stringify(request.headers)).not.toContain('page-own-token');
      expect(JSON.stringify(request.headers)).not.toContain(SESSION);
    }
    const [submission, upload, query] = upstream.requests as [Recorded, Recorded, Recorded];
    expect(submission.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(upload.headers.authorization).toBe(`Bearer ${KEY}`);
    // The spec's task query needs no key: it never gets one.
    expect(query.headers.authorization).toBeUndefined();
    // Nothing else of the page's goes: only what the proxy itself sets.
    expect(Object.keys(query.headers).sort()).toEqual(expect.arrayContaining(['accept', 'host']));
    expect(Object.keys(query.headers).filter((name) => !['accept', 'host', 'connection', 'accept-encoding', 'accept-language', 'sec-fetch-mode', 'user-agent'].includes(name))).toEqual([]);
  });

  it('no log line holds the key, even when the app\u2019s own hooks throw it', async () => {
    const logged = await startProxy(
      {
        upstream: upstream.url,
        policy: () => {
          throw new Error(`policy broke while holding ${KEY}`);
        },
      },
      mode,
    );
    const unreachable = await startProxy({ upstream: `http://127.0.0.1:${await portBelowEphemeralRange()}`, authorize: () => ({ id: `user-${KEY}` }) }, mode);
    try {
      for (const [, build] of requests) await rawRequest(logged.port, build(logged.port));
      for (const [, build] of requests) await rawRequest(unreachable.port, build(unreachable.port));
      expect(logged.logs.length).toBeGreaterThan(0);
      expect(unreachable.logs.length).toBeGreaterThan(0);
      for (const line of [...logged.logs, ...unreachable.logs]) expect(leaks(line), line).toEqual([]);
    } finally {
      await logged.close();
      await unreachable.close();
    }
  });

  it('a page\u2019s client behind it gets typed errors without the key, whatever the service echoes', async () => {
    status = 401;
    shape = 'escaped-json';
    const client = new OmniMedia({ proxyURL: `${proxy.url}/api/omnimedia`, defaultHeaders: { cookie: SESSION }, maxRetries: 0 });
    const error = await client.images.generate({ model: 'omni-image', prompt: 'a fox' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(401);
    expect(leaks(JSON.stringify(error))).toEqual([]);
    expect(leaks(String((error as Error).message))).toEqual([]);
  });
});

// Issue 30, defect 5: keys under 16 characters were removed only at token boundaries, and a
// base64 run never sits on one: a 13-character key echoed as base64 reached the page.
describe('a short key, echoed encoded at every alignment, never reaches the page', () => {
  const SHORT_KEY = 'sk-9f8e7d6c5b';
  const ENCODE: Record<string, (text: string) => string> = {
    base64: (text) => Buffer.from(text).toString('base64'),
    base64url: (text) => Buffer.from(text).toString('base64url'),
    hex: (text) => Buffer.from(text).toString('hex'),
    'percent-encoded': encodeURIComponent,
  };

  it.each(['node', 'fetch'] as Mode[])('%s handler: in the body (JSON and error text), in a passed header, with 0 to 2 bytes before it', async (mode) => {
    let prefix = '';
    let encoding = 'base64';
    const upstream = await startRecorder((request, res) => {
      const echoed = ENCODE[encoding]!(`${prefix}${String(request.headers.authorization)}`);
      res.setHeader('x-request-id', `req-${echoed}`);
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `you sent ${echoed}`, [echoed]: echoed } }));
    });
    const proxy = await startProxy({ upstream: upstream.url, apiKey: SHORT_KEY }, mode);
    try {
      for (encoding of Object.keys(ENCODE))
        for (prefix of ['', 'x', 'xy']) {
          const body = JSON.stringify({ model: 'omni-image', prompt: 'a fox' });
          const answer = await rawRequest(
            proxy.port,
            `POST /api/omnimedia/v1/images/generations HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\nCookie: ${SESSION}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          );
          expect(answer.status).toBe(401);
          expect(secretFormsIn(answer.raw, SHORT_KEY), `${encoding}, ${prefix.length} bytes before: ${answer.raw}`).toEqual([]);
        }
      expect(upstream.requests.every((r) => r.headers.authorization === `Bearer ${SHORT_KEY}`)).toBe(true);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});
