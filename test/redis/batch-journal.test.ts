// redisBatchJournal on a real redis-server (node-redis and ioredis): entries read back a page at
// a time, a batch stopped and resumed from another client submits no job twice, and a Redis
// that does not answer stops the batch before anything more is sent.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OmniMedia, ValidationError } from 'omnimedia';
import type { BatchJob, BatchResult } from 'omnimedia/resources';
import { redisBatchJournal, type RedisClientLike } from 'omnimedia/redis';
import { createMockService } from 'omnimedia/testing';
import { REDIS_AVAILABLE, RedisServer, spawnRedisServer } from '../helpers/redis-server.ts';
import { portBelowEphemeralRange } from '../helpers/ports.ts';
import { everyStep } from '../helpers/teardown.ts';
import { countingMock, NODE } from '../helpers/batch-cli.ts';

const HOOK = fileURLToPath(new URL('../helpers/omnimedia-from-src.mjs', import.meta.url));
const BATCH = fileURLToPath(new URL('../helpers/redis-journal-batch.ts', import.meta.url));

const jobs: BatchJob[] = Array.from({ length: 12 }, (_, i) => ({ id: `job-${i}`, op: 'images.generate', params: { model: 'omni-image', prompt: `p ${i}` } }));

describe.skipIf(!REDIS_AVAILABLE)('redisBatchJournal', () => {
  const server = new RedisServer();
  const closing: Array<() => unknown> = [];

  beforeAll(() => server.start());
  afterAll(() => everyStep(...closing, () => server.stop()));

  async function connect(kind: 'node-redis' | 'ioredis'): Promise<RedisClientLike> {
    if (kind === 'ioredis') {
      const io = new Redis(server.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
      closing.push(() => io.disconnect());
      return io;
    }
    const client = await createClient({ url: server.url }).connect();
    closing.push(() => client.destroy());
    return client;
  }

  for (const kind of ['node-redis', 'ioredis'] as const) {
    it(`${kind}: the last entry of each job, read back a page at a time`, async () => {
      const journal = redisBatchJournal(await connect(kind), { name: `pages-${kind}` });
      await Promise.all(Array.from({ length: 1_200 }, (_, i) => journal.write({ id: `j${i}`, state: 'sending', at: i })));
      await journal.write({ id: 'j7', state: 'submitted', at: 7, task_id: 'task_7' });
      await journal.close?.();
      const again = redisBatchJournal(await connect(kind), { name: `pages-${kind}` });
      const entries = await again.read();
      expect(entries).toHaveLength(1_200);
      expect(entries.find((e) => e.id === 'j7')).toEqual({ id: 'j7', state: 'submitted', at: 7, task_id: 'task_7' });
      await again.close?.();
      // One key, in one slot: `{prefix}{batch:<name>}`.
      expect(await (await connect('ioredis') as Redis).exists(`omnimedia:{batch:pages-${kind}}`)).toBe(1);
    });

    it(`${kind}: a batch stopped mid-way and resumed by another client submits every job once`, async () => {
      const mock = createMockService({ durations: { pending: 20, image: 150 } });
      const client = () => new OmniMedia({ apiKey: 'k', baseURL: mock.baseURL, fetch: mock.fetch, logLevel: 'off' });
      const controller = new AbortController();
      const name = `resume-${kind}`;
      const first: BatchResult[] = [];
      const options = { wait: { initialDelay: 20, interval: 20 } };
      for await (const line of client().batch(jobs, { ...options, journal: redisBatchJournal(await connect(kind), { name }), concurrency: 2, signal: controller.signal })) {
        first.push(line);
        if (first.length === 3) controller.abort();
      }
      const second: BatchResult[] = [];
      for await (const line of client().batch(jobs, { ...options, journal: redisBatchJournal(await connect(kind), { name }) })) second.push(line);
      expect([...first, ...second].map((l) => l.id).sort()).toEqual(jobs.map((j) => j.id).sort());
      expect(mock.requests.filter((r) => r.method === 'POST' && r.status === 200)).toHaveLength(jobs.length);
      mock.close();
    });
  }

  it('a Redis that does not answer: the write fails within timeoutMs, and the batch stops before sending', async () => {
    let asked = 0;
    const hung = { sendCommand: () => (asked++, new Promise(() => {})), duplicate: () => hung } as unknown as RedisClientLike;
    const mock = createMockService();
    const client = new OmniMedia({ apiKey: 'k', baseURL: mock.baseURL, fetch: mock.fetch, logLevel: 'off' });
    // Fake time (real time was a stopwatch, < 2 s, that a busy machine can miss): once its first
    // command is on its way, 100 ms of fake time end the batch, however long the machine took to get there.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    try {
      const iteration = client.batch(jobs, { journal: redisBatchJournal(hung, { name: 'hung', timeoutMs: 100 }) })[Symbol.asyncIterator]();
      let outcome: unknown = 'pending';
      void iteration.next().then(
        () => (outcome = 'resolved'),
        (error: unknown) => (outcome = error),
      );
      for (let round = 0; asked === 0; round++) {
        if (round > 100_000) throw new Error('the journal sent no command');
        await new Promise((resolve) => setImmediate(resolve));
      }
      await vi.advanceTimersByTimeAsync(99);
      expect(outcome).toBe('pending'); // not before its timeout
      await vi.advanceTimersByTimeAsync(1);
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).message).toMatch(/Redis did not answer .* within 100 ms/);
    } finally {
      vi.useRealTimers();
    }
    expect(mock.requests).toHaveLength(0);
    expect(() => redisBatchJournal(hung, { name: '' })).toThrow(ValidationError);
  });

  it('one owner: a second process on the same name refuses at once; each job paid once; a writer that lost its lease sends nothing more', async () => {
    const mock = await countingMock({ durations: { pending: 100, image: 1_500 }, callbackRetryDelays: [] });
    const run = () => {
      const child = spawn(NODE, ['--experimental-transform-types', '--no-warnings', '--import', HOOK, BATCH, String(server.port), mock.server.url, 'owned', '8'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout?.setEncoding('utf8').on('data', (text: string) => void (out += text));
      return { child, done: new Promise<string>((resolve) => child.on('close', () => resolve(out))) };
    };
    // The first's submissions are held until the second has ended (or 15 s passed): both at once.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let submitting = false;
    mock.hook = (event) => {
      if (event.kind !== 'submission') return;
      submitting = true;
      return held;
    };
    const first = run();
    while (!submitting) await new Promise((resolve) => setTimeout(resolve, 50));
    const timer = setTimeout(release, 15_000);
    const second = await run().done;
    release();
    clearTimeout(timer);
    expect(second).toMatch(/^error: .*batch journal "owned" is in use by another run \(pid \d+/);
    const out = await first.done;
    expect(out).toContain('done');
    expect(out.split('\n').filter((line) => line.endsWith(' completed'))).toHaveLength(8);
    expect([...mock.accepted.values()]).toEqual(Array.from({ length: 8 }, () => 1));
    await mock.close();

    // Lost: another holder took the name (the lease lapsed while this one was frozen): the write fails.
    const redis = await connect('ioredis');
    const journal = redisBatchJournal(redis, { name: 'lost' });
    await journal.write({ id: 'a', state: 'sending', at: 1 });
    await (redis as Redis).set('omnimedia:{batch:lost}:owner', 'someone else');
    await expect(Promise.resolve(journal.write({ id: 'b', state: 'sending', at: 2 }))).rejects.toThrow(/lost its lease/);
    expect(await (redis as Redis).hget('omnimedia:{batch:lost}', 'b')).toBeNull();
  }, 60_000);
});

describe.skipIf(!REDIS_AVAILABLE)('redisBatchJournal: durability on a real redis-server killed (-9) and restarted', () => {
  async function withServer(args: string[], body: (url: string, restart: () => Promise<void>) => Promise<void>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'omnimedia-redis-aof-'));
    const port = await portBelowEphemeralRange();
    const base = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...args];
    let server: ChildProcess = await spawnRedisServer(base);
    const restart = async () => {
      await new Promise((resolve) => {
        server.once('exit', resolve);
        server.kill('SIGKILL');
      });
      server = await spawnRedisServer(base);
    };
    try {
      await body(`redis://127.0.0.1:${port}`, restart);
    } finally {
      server.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function writeTen(url: string, warnings: string[]): Promise<Redis> {
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    const journal = redisBatchJournal(redis, { name: 'durable', logger: { warn: (message) => void warnings.push(message) } });
    for (let i = 0; i < 10; i++) await journal.write({ id: `job-${i}`, state: 'submitted', at: i, task_id: `task_${i}` });
    await journal.close?.();
    redis.disconnect();
    return redis;
  }

  it('appendonly yes, appendfsync always: every entry written survives a kill -9, and no warning', async () => {
    await withServer(['--appendonly', 'yes', '--appendfsync', 'always', '--save', ''], async (url, restart) => {
      const warnings: string[] = [];
      await writeTen(url, warnings);
      await restart();
      const redis = new Redis(url, { maxRetriesPerRequest: 1 });
      expect(await redis.hlen('omnimedia:{batch:durable}')).toBe(10);
      redis.disconnect();
      expect(warnings).toEqual([]);
    });
  }, 30_000);

  it("Redis's defaults (no append-only file): one warning at the start naming the settings; what a kill -9 loses", async () => {
    await withServer([], async (url, restart) => {
      const warnings: string[] = [];
      await writeTen(url, warnings);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/appendonly yes with appendfsync always/);
      await restart();
      const redis = new Redis(url, { maxRetriesPerRequest: 1 });
      // What the warning is about: the entries written since the last snapshot are gone.
      expect(await redis.hlen('omnimedia:{batch:durable}')).toBe(0);
      redis.disconnect();
    });
  }, 30_000);
});
