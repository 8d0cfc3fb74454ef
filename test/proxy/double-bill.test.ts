// "Never double-bill": the proxy forwards a submission once and passes the service's answer
// back (status, Retry-After); the page's client then applies its retry rules, so a 504 from an
// upstream timeout, a 500 or a reset after sending cost exactly one POST at the service, and
// a 429 then an accept exactly two.
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InternalServerError, OmniMedia, RateLimitError, ServiceUnavailableError, type APIError } from 'omnimedia';
import { isRetryable } from '../../src/transport/retry-policy.ts';
import { portBelowEphemeralRange } from '../helpers/ports.ts';
import { SESSION, rawPost, startProxy, startRecorder, type Recorded, type RunningProxy } from './helpers.ts';

const ACCEPTED = JSON.stringify({ task_id: 'task_1', status: 'pending', model: 'omni-image', created_at: 1 });
type Answer = (request: Recorded, res: ServerResponse) => void;

describe('never double-bill', () => {
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  let proxy: RunningProxy;
  let script: Answer[] = [];
  const posts = () => upstream.requests.filter((r) => r.method === 'POST').length;
  const page = (maxRetries = 2) => new OmniMedia({ proxyURL: `${proxy.url}/api/omnimedia`, defaultHeaders: { cookie: SESSION }, maxRetries });
  const submit = (client = page()) => client.images.generate({ model: 'omni-image', prompt: 'a fox' }).then((v) => v, (e: unknown) => e as APIError);

  beforeAll(async () => {
    upstream = await startRecorder((request, res) => (script.shift() ?? ((_r, out) => void out.writeHead(200, { 'content-type': 'application/json' }).end(ACCEPTED)))(request, res));
    proxy = await startProxy({ upstream: upstream.url, timeout: 300 });
  });
  afterEach(() => {
    upstream.requests.length = 0;
    script = [];
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  it('a 429 then an accept: exactly two POSTs at the service, and the page gets its task', async () => {
    script = [(_r, res) => void res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"error":{"message":"slow down"}}')];
    const result = await submit();
    expect(result).toMatchObject({ task_id: 'task_1' });
    expect(posts()).toBe(2);
  });

  it('the service\u2019s status and Retry-After pass back to the page', async () => {
    script = [(_r, res) => void res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120' }).end('{"error":{"message":"quota"}}')];
    const answer = await rawPost(proxy.port, '/api/omnimedia/v1/images/generations', JSON.stringify({ model: 'omni-image', prompt: 'a fox' }));
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toEqual(['120']);
    script = [(_r, res) => void res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120' }).end('{"error":{"message":"quota"}}')];
    const error = await submit();
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(120);
  });

  it('an upstream timeout is a 504, which the page\u2019s client does not retry: one POST', async () => {
    script = [() => {}]; // never answers
    const started = Date.now();
    const error = await submit();
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(posts()).toBe(1);
    // The retry policy says so for every submission: a 504 may have been accepted.
    expect(isRetryable(error, 'submission')).toBe(false);
  });

  it('a 500 passes back and is not retried: one POST', async () => {
    script = [(_r, res) => void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}')];
    expect(await submit()).toBeInstanceOf(InternalServerError);
    expect(posts()).toBe(1);
  });

  it('a reset after the service got the body is a 502, not retried: one POST', async () => {
    script = [(_r, res) => res.socket?.destroy()];
    const error = await submit();
    expect(error.status).toBe(502);
    expect(posts()).toBe(1);
  });

  it('a 503 passes back with its Retry-After and is retried (the service surely took nothing)', async () => {
    script = [(_r, res) => void res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{}')];
    expect(await submit()).toMatchObject({ task_id: 'task_1' });
    expect(posts()).toBe(2);
  });

  it('a service that cannot be reached at all is a 503 (nothing was sent), so the page may retry', async () => {
    const unreachable = await startProxy({ upstream: `http://127.0.0.1:${await portBelowEphemeralRange()}` });
    try {
      const client = new OmniMedia({ proxyURL: `${unreachable.url}/api/omnimedia`, defaultHeaders: { cookie: SESSION }, maxRetries: 0 });
      const error = await client.images.generate({ model: 'omni-image', prompt: 'a fox' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
    } finally {
      await unreachable.close();
    }
  });
});
