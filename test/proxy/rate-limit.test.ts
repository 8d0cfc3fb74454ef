// "Limits per identity": rateLimit answers 429 with Retry-After (the page's client sees
// RateLimitError with retryAfter), per identity and per kind of request; with a coordination
// the limit is one across a fleet of proxy processes on Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia, RateLimitError } from 'omnimedia';
import { createProxy, MemoryRateLimits } from 'omnimedia/proxy';
import { redisCoordination, type RedisClientLike } from 'omnimedia/redis';
import { REDIS_AVAILABLE, RedisServer } from '../helpers/redis-server.ts';
import { startProxy, startRecorder, type RunningProxy } from './helpers.ts';
import { everyStep } from '../helpers/teardown.ts';
import { owned } from '../helpers/owned-process.ts';

const ACCEPTED = JSON.stringify({ task_id: 'task_1', status: 'pending', model: 'm', created_at: 1 });
const root = fileURLToPath(new URL('../../', import.meta.url));

let upstream: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  upstream = await startRecorder((_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(ACCEPTED));
});
afterEach(() => void (upstream.requests.length = 0));
afterAll(() => upstream.close());

const byUser = (request: Request) => ({ id: request.headers.get('x-user') ?? 'anonymous' });
const submit = (url: string, user: string) =>
  fetch(`${url}/api/omnimedia/v1/images/generations`, { method: 'POST', headers: { 'x-user': user, 'content-type': 'application/json' }, body: '{"model":"m","prompt":"p"}' });

describe('rateLimit, in one process', () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await startProxy({
      upstream: upstream.url,
      authorize: byUser,
      rateLimit: { submissions: { limit: 2, windowMs: 120_000 }, queries: { limit: 1, windowMs: 120_000 } },
    });
  });
  afterAll(() => proxy.close());

  it('per identity: past its limit a 429 with Retry-After, nothing forwarded; another identity is not held back', async () => {
    expect((await submit(proxy.url, 'alice')).status).toBe(200);
    expect((await submit(proxy.url, 'alice')).status).toBe(200);
    const refused = await submit(proxy.url, 'alice');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(115);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(120);
    expect((await submit(proxy.url, 'bob')).status).toBe(200);
    expect(upstream.requests).toHaveLength(3);
  });

  it('each kind of request has its own limit; one without a rule has none', async () => {
    const query = () => fetch(`${proxy.url}/api/omnimedia/v1/tasks/task_1`, { headers: { 'x-user': 'carol' } });
    expect((await query()).status).toBe(200);
    expect((await query()).status).toBe(429);
    expect((await submit(proxy.url, 'carol')).status).toBe(200); // submissions: a limit of their own
  });

  it('the page\u2019s client gets RateLimitError with retryAfter (too long to sleep through)', async () => {
    const client = new OmniMedia({ proxyURL: `${proxy.url}/api/omnimedia`, defaultHeaders: { 'x-user': 'dave' } });
    await client.images.generate({ model: 'm', prompt: 'p' });
    await client.images.generate({ model: 'm', prompt: 'p' });
    const error = (await client.images.generate({ model: 'm', prompt: 'p' }).catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBeGreaterThan(115);
  });

  it('a store that fails is a refusal (503, nothing forwarded), never a free pass', async () => {
    const broken = createProxy({
      apiKey: 'k',
      baseURL: upstream.url,
      authorize: () => ({ id: 'x' }),
      rateLimit: { submissions: { limit: 5, windowMs: 1_000 } },
      coordination: { rateLimits: { take: () => Promise.reject(new Error('store down')) } } as never,
      logger: { error() {}, warn() {}, info() {}, debug() {} },
    });
    const answer = await broken.handler(new Request('http://127.0.0.1/v1/images/generations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m","prompt":"p"}' }));
    expect(answer.status).toBe(503);
    expect(upstream.requests).toEqual([]);
  });

  it('the default store is this process\u2019s own MemoryRateLimits', () => {
    expect(new MemoryRateLimits().take('k', 1, 1_000)).toEqual({ allowed: true });
  });
});

describe.skipIf(!REDIS_AVAILABLE)('rateLimit with a coordination: one limit across a fleet of proxy processes on Redis', () => {
  const redis = new RedisServer();
  let child: ChildProcess;
  let childURL: string;
  let local: RunningProxy;
  let client: ReturnType<typeof createClient>;
  let coordination: ReturnType<typeof redisCoordination>;

  beforeAll(async () => {
    await redis.start();
    client = createClient({ url: redis.url });
    client.on('error', () => {});
    await client.connect();
    // A 5 s command timeout in both processes: a command slower than it is an outage, in which
    // each process limits alone (DESIGN 8). At a load of 10 the default 500 ms missed answers that
    // came in time (Node ran the due timer first) and the five requests were all let through.
    coordination = redisCoordination(client as unknown as RedisClientLike, { prefix: 'fleet:', commandTimeoutMs: 5_000 });
    local = await startProxy({ upstream: upstream.url, authorize: byUser, rateLimit: { submissions: { limit: 3, windowMs: 60_000 } }, coordination });
    child = owned(
      spawn(`${root}node_modules/.bin/node`, ['--import', `${root}test/helpers/omnimedia-from-src.mjs`, `${root}test/proxy/fleet-proxy.ts`], {
        env: { ...process.env, REDIS_URL: redis.url, UPSTREAM: upstream.url, LIMIT: '3', COMMAND_TIMEOUT_MS: '5000' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    childURL = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const port = /PORT=(\d+)/.exec(out)?.[1];
        if (port) resolve(`http://127.0.0.1:${port}`);
      });
      child.once('exit', (code) => reject(new Error(`the fleet proxy exited with ${code}`)));
    });
  }, 30_000);
  afterAll(() =>
    everyStep(
      () => child?.kill('SIGTERM'),
      () => local?.close(),
      () => coordination?.close(),
      () => client?.destroy(),
      () => redis.stop(),
    ),
  );

  it('requests spread over two processes share one limit per identity', async () => {
    const statuses = [];
    for (const url of [local.url, childURL, local.url, childURL, local.url]) statuses.push((await submit(url, 'erin')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect((await submit(childURL, 'frank')).status).toBe(200);
    expect(upstream.requests).toHaveLength(4);
  });
});
