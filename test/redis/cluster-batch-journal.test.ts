// redisBatchJournal on a real Redis Cluster (3 masters + 3 replicas): node-redis createCluster
// and ioredis Cluster clients; the batch's one key in one slot (each write waits for a
// replica's WAIT), and a batch resumed from the other client submits every job once.
import { createCluster } from 'redis';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';
import type { BatchJob, BatchResult } from 'omnimedia/resources';
import { redisBatchJournal, type RedisClientLike } from 'omnimedia/redis';
import { createMockService } from 'omnimedia/testing';
import { CLUSTER_AVAILABLE, RedisCluster } from '../helpers/redis-cluster.ts';
import { everyStep } from '../helpers/teardown.ts';

describe.skipIf(!CLUSTER_AVAILABLE)('redisBatchJournal on a Redis Cluster', () => {
  const cluster = new RedisCluster();
  const opened: Array<() => unknown> = [];

  beforeAll(() => cluster.start(), 60_000);
  afterAll(() => everyStep(...opened, () => cluster.stop()));

  async function connect(kind: 'node-redis' | 'ioredis'): Promise<RedisClientLike> {
    const roots = cluster.ports.slice(0, 2);
    if (kind === 'ioredis') {
      const io = new Cluster(roots.map((port) => ({ host: '127.0.0.1', port })));
      io.on('error', () => {});
      opened.push(() => io.disconnect());
      return io;
    }
    const client = createCluster({ rootNodes: roots.map((port) => ({ url: `redis://127.0.0.1:${port}` })) });
    client.on('error', () => {});
    await client.connect();
    opened.push(() => client.destroy());
    return client as unknown as RedisClientLike;
  }

  it('a batch journaled by one cluster client and resumed by the other: every job once, one key in one slot', async () => {
    const jobs: BatchJob[] = Array.from({ length: 10 }, (_, i) => ({ id: `job-${i}`, op: 'images.generate', params: { model: 'omni-image', prompt: `p ${i}` } }));
    const mock = createMockService({ durations: { pending: 20, image: 150 } });
    const client = () => new OmniMedia({ apiKey: 'k', baseURL: mock.baseURL, fetch: mock.fetch, logLevel: 'off' });
    const options = { wait: { initialDelay: 20, interval: 20 } };
    const controller = new AbortController();
    const first: BatchResult[] = [];
    for await (const line of client().batch(jobs, { ...options, journal: redisBatchJournal(await connect('node-redis'), { name: 'catalogue' }), concurrency: 2, signal: controller.signal })) {
      first.push(line);
      if (first.length === 4) controller.abort();
    }
    const second: BatchResult[] = [];
    for await (const line of client().batch(jobs, { ...options, journal: redisBatchJournal(await connect('ioredis'), { name: 'catalogue' }) })) second.push(line);
    expect([...first, ...second].map((l) => l.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    expect(mock.requests.filter((r) => r.method === 'POST' && r.status === 200)).toHaveLength(jobs.length);
    // The key's master and its replica hold every job's entry.
    const key = 'omnimedia:{batch:catalogue}';
    const master = await cluster.masterOf(key);
    expect(Number((await cluster.cli(master, 'HLEN', key)).trim())).toBe(jobs.length);
    mock.close();
  }, 60_000);
});
