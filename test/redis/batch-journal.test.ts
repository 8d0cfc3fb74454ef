// redisBatchJournal on a real redis-server (node-redis and ioredis): entries read back a page at
// a time, a batch stopped and resumed from another client submits no job twice, and a Redis
// that does not answer stops the batch before anything more is sent.
import { createClient } from 'redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia, ValidationError } from 'omnimedia';
import type { BatchJob, BatchResult } from 'omnimedia/resources';
import { redisBatchJournal, type RedisClientLike } from 'omnimedia/redis';
import { createMockService } from 'omnimedia/testing';
import { REDIS_AVAILABLE, RedisServer } from '../helpers/redis-server.ts';
import { everyStep } from '../helpers/teardown.ts';

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
      const again = redisBatchJournal(await connect(kind), { name: `pages-${kind}` });
      const entries = await again.read();
      expect(entries).toHaveLength(1_200);
      expect(entries.find((e) => e.id === 'j7')).toEqual({ id: 'j7', state: 'submitted', at: 7, task_id: 'task_7' });
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
    const hung = { sendCommand: () => new Promise(() => {}), duplicate: () => hung } as unknown as RedisClientLike;
    const mock = createMockService();
    const client = new OmniMedia({ apiKey: 'k', baseURL: mock.baseURL, fetch: mock.fetch, logLevel: 'off' });
    const started = Date.now();
    const iteration = client.batch(jobs, { journal: redisBatchJournal(hung, { name: 'hung', timeoutMs: 100 }) })[Symbol.asyncIterator]();
    await expect(iteration.next()).rejects.toThrow(/Redis did not answer HSCAN within 100 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(mock.requests).toHaveLength(0);
    expect(() => redisBatchJournal(hung, { name: '' })).toThrow(ValidationError);
  });
});
