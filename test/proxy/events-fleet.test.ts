// Task events across a fleet: two proxy processes (test/proxy/fleet-events-proxy.ts: the proxy
// and the server's OmniMedia with its callback handler, on one coordination) on a real
// redis-server, in front of the mock service. Pages on both follow one task: the service is read
// as by one watch, the second instance's streams get their first event within 2 s, and a
// callback handled by one instance ends the streams of the other within milliseconds.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { sseParser } from '../../src/transport/sse.ts';
import { REDIS_AVAILABLE, RedisServer } from '../helpers/redis-server.ts';
import { everyStep } from '../helpers/teardown.ts';
import { owned } from '../helpers/owned-process.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Instance {
  url: string;
  process: ChildProcess;
}

function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = owned(
    spawn(`${root}node_modules/.bin/node`, ['--import', `${root}test/helpers/omnimedia-from-src.mjs`, `${root}test/proxy/fleet-events-proxy.ts`], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const port = /PORT=(\d+)/.exec(out)?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}/api/omnimedia`, process: child });
    });
    child.once('exit', (code) => reject(new Error(`a fleet proxy exited with ${code}`)));
  });
}

/** A page's stream: each task event's status with its arrival time (ms since the epoch). */
async function follow(url: string, taskId: string) {
  const heard: { status: string; at: number }[] = [];
  const opened = Date.now();
  const response = await fetch(`${url}/v1/tasks/${taskId}/events`);
  const feed = sseParser(({ event, data }) => event === 'task' && heard.push({ status: (JSON.parse(data) as { status: string }).status, at: Date.now() }));
  const done = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) feed(decoder.decode(chunk, { stream: true }));
  })();
  return { opened, heard, done, status: response.status };
}

describe.skipIf(!REDIS_AVAILABLE)('task events on a fleet of two proxy processes on Redis', () => {
  const redis = new RedisServer();
  let mock: MockServer;
  let instances: Instance[] = [];
  const start = async (callbacks: boolean) => {
    const env = { REDIS_URL: redis.url, UPSTREAM: mock.url, CALLBACKS: callbacks ? '1' : '0', PREFIX: `t${Date.now()}:`, COMMAND_TIMEOUT_MS: '5000' };
    instances = await Promise.all([startInstance(env), startInstance(env)]);
    return instances;
  };

  beforeAll(async () => {
    await redis.start();
    mock = await startMockServer({ durations: { pending: 1_000, image: 3_000 } });
  }, 30_000);
  afterEach(() => {
    for (const instance of instances) instance.process.kill('SIGTERM');
    instances = [];
  });
  afterAll(() => everyStep(() => mock?.close(), () => redis.stop()));

  const submitThrough = async (url: string) => {
    const response = await fetch(`${url}/v1/images/generations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"omni-image","prompt":"p"}' });
    return ((await response.json()) as { task_id: string }).task_id;
  };
  const reads = (taskId: string) => mock.mock.requests.filter((r) => r.method === 'GET' && r.path === `/v1/tasks/${taskId}`);

  it('pages on both instances see every status; the service is read as by one watch; the second instance\u2019s first event within 2 s', async () => {
    const [a, b] = await start(false);
    const taskId = await submitThrough(a!.url);
    const onA = await Promise.all(Array.from({ length: 5 }, () => follow(a!.url, taskId)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const onB = await Promise.all(Array.from({ length: 5 }, () => follow(b!.url, taskId)));
    await Promise.all([...onA, ...onB].map((page) => page.done));
    for (const page of [...onA, ...onB]) expect(page.heard.at(-1)?.status).toBe('completed');
    // B's streams: every status after the first (processing, heard from A's watch), not only the end.
    for (const page of onB) {
      // From what A's watch published (kept on Redis): B reads nothing; the DESIGN's bound is 2 s
      // (at once on an idle machine: this is the contract, not a stopwatch).
      expect(page.heard[0]!.at - page.opened).toBeLessThan(2_000);
      expect(page.heard.map((h) => h.status)).toContain('processing');
    }
    // One waiter's queries (a read at once, then 2.5 s gaps: 4 s of task) and one more at most.
    expect(reads(taskId).length).toBeLessThanOrEqual(4);
  }, 30_000);

  it('with callbacks: a watch that starts when the fleet knows the task reads nothing (its first query is the 30 s fallback\'s)', async () => {
    const [a, b] = await start(true);
    const taskId = await submitThrough(a!.url);
    // A first page comes and goes: its watch read the task once, and the fleet keeps what it saw.
    const controller = new AbortController();
    const first = await fetch(`${a!.url}/v1/tasks/${taskId}/events`, { signal: controller.signal });
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('event: task')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // A new watch on the same instance: the task is known, so no read of its own. (B is left
    // out: under load its lease claim may time out, and a claim that cannot be asked is held.)
    void b;
    const later = await Promise.all([follow(a!.url, taskId), follow(a!.url, taskId)]);
    await Promise.all(later.map((page) => page.done));
    for (const page of later) expect(page.heard.at(-1)?.status).toBe('completed');
    // The first watch's read and the callback handler's verifying read. Before: 3 (A's new watch read again).
    expect(reads(taskId).length).toBe(2);
  }, 30_000);

  it('short page visits leave no lease behind: a stopped watch releases what its claim, still on its way to Redis, obtains', async () => {
    const [a] = await start(false);
    const submitted = await Promise.all(
      Array.from({ length: 120 }, async () => {
        const response = await fetch(`${mock.url}/v1/images/generations`, { method: 'POST', headers: { authorization: 'Bearer sk-fleet', 'content-type': 'application/json' }, body: '{"model":"omni-image","prompt":"p"}' });
        return ((await response.json()) as { task_id: string }).task_id;
      }),
    );
    // Each page leaves 0 to 9 ms after its stream opened: its watch stops while the lease's
    // claim may be on its way to Redis.
    await Promise.all(
      submitted.map(async (taskId, i) => {
        const controller = new AbortController();
        const response = await fetch(`${a!.url}/v1/tasks/${taskId}/events`, { signal: controller.signal });
        await new Promise((resolve) => setTimeout(resolve, i % 10));
        controller.abort();
        await response.body?.cancel().catch(() => {});
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const client = await redis.client();
    try {
      const leases = (await client.keys('*lease:*')).filter((key) => submitted.some((taskId) => key.includes(taskId)));
      // Before: 17 of 120 visits left a lease A never gave back (B's pages heard the end 120 s late).
      expect(leases).toEqual([]);
    } finally {
      await client.quit();
    }
  }, 60_000);

  // How soon the end reaches B's pages (target p99 100 ms) is measured by `npm run bench -- live`, not by a stopwatch here.
  it('with callbacks: one read when the first stream opens, then only the callback\u2019s verifying read; the end reaches the other instance\u2019s pages', async () => {
    const [a, b] = await start(true);
    const taskId = await submitThrough(a!.url);
    const first = await follow(a!.url, taskId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const onB = await Promise.all(Array.from({ length: 5 }, () => follow(b!.url, taskId)));
    await Promise.all([first.done, ...onB.map((page) => page.done)]);
    const seen = reads(taskId);
    // The first stream's read, and the callback handler's verifying read (on A): nothing else.
    expect(seen.length).toBe(2);
    for (const page of onB) expect(page.heard.at(-1)?.status).toBe('completed');
  }, 30_000);
});
