// A fleet on a Redis Cluster, end to end: instances in child processes (test/helpers/fleet-
// instance.ts: each its own cluster client, coordination, OmniMedia client and nodeHandler
// server) share a real 3-master + 3-replica cluster and the mock service, as on one Redis
// (fleet-suite.ts). Fleets mix node-redis `createCluster` and ioredis `Cluster` instances on one
// prefix, each client in each role (the one that handles a callback, the one that waits, the
// one that resumes); the failover SIGKILLs the master of the fleet's keys mid-run. One cluster
// for the file, a prefix per test. Real time: processes, sockets and the cluster's own failure
// detection are the subject here.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer, MockService } from 'omnimedia/testing';
import { eventually, FleetInstance, NEXT_QUERY_IN_A_MINUTE, peakOfRequests, startLoggedMock, taskQueries, type LoggedRequest } from '../helpers/fleet.ts';
import { CLUSTER_AVAILABLE, RedisCluster } from '../helpers/redis-cluster.ts';

type Kind = 'node-redis' | 'ioredis';
const NR: Kind = 'node-redis';
const IO: Kind = 'ioredis';

describe.skipIf(!CLUSTER_AVAILABLE)('a fleet on a Redis Cluster (node-redis and ioredis instances, mixed)', () => {
  const cluster = new RedisCluster();
  let server: MockServer;
  let mock: MockService;
  let log: LoggedRequest[];
  const instances: FleetInstance[] = [];
  let fleets = 0;

  /** Instances of one fleet (a prefix of its own), the i-th on `clients[i]`. */
  const start = async (clients: Kind[], options: { maxPollsPerSecond?: number } = {}) => {
    const prefix = `fleet${++fleets}:`;
    const started = await Promise.all(
      // A 2 s command timeout, as test/redis/fleet-suite.ts's 1.5 s: these tests are about a cluster
      // that answers; at a load of 8 the default 500 ms made a slow answer an outage (DESIGN 8), and
      // an instance whose wait should have ended on the fleet's news asked the service itself.
      clients.map((redisClient) =>
        FleetInstance.start({ redisUrl: cluster.urls.join(','), redisClient, cluster: true, prefix, baseURL: server.url, commandTimeoutMs: 2_000, ...options }),
      ),
    );
    instances.push(...started);
    return started;
  };
  const posts = () => log.filter((r) => r.method === 'POST' && r.path === '/v1/images/generations').length;

  beforeAll(async () => {
    await Promise.all([cluster.start(), startLoggedMock({ pending: 200, image: 1_500 }).then((started) => ({ server, mock, log } = started))]);
  }, 60_000);
  afterEach(async () => {
    await Promise.all(instances.splice(0).map((i) => i.close()));
    log.length = 0;
  });
  afterAll(async () => {
    await server?.close();
    await cluster.stop();
  });

  // Each client in each role, side by side (a fleet and a prefix each), to keep the file short.
  // A wait that ends proves the news came: its next query is a minute away (how soon: `npm run bench -- fleet`, target p99 50 ms on a cluster).
  it('a callback handled by one instance ends another’s wait with no further query; a later wait needs none (node-redis → ioredis, ioredis → node-redis)', async () => {
    const variant = async (handler: Kind, waiter: Kind) => {
      const [a, b, c] = await start([handler, waiter, handler]);
      const [id] = await a!.submit(1, true);
      await b!.wait([id!], NEXT_QUERY_IN_A_MINUTE);
      await a!.until((m) => m.event === 'onTask' && m.id === id);
      await b!.until((m) => m.event === 'resolved' && m.id === id);
      expect(taskQueries(log, id).length).toBeLessThanOrEqual(2); // B's first query, A's handler verifying
      const before = taskQueries(log, id).length;
      await c!.wait([id!]);
      await c!.until((m) => m.event === 'resolved' && m.id === id);
      expect(taskQueries(log, id).length).toBe(before);
    };
    await Promise.all([variant(NR, IO), variant(IO, NR)]);
  }, 30_000);

  it('one callback delivered to three instances runs onTask once (node-redis ×3, ioredis ×3, mixed)', async () => {
    const variant = async (clients: Kind[]) => {
      const three = await start(clients);
      const [id] = await three[0]!.submit(1);
      await eventually(() => (mock.task(id!) as { status?: string } | undefined)?.status === 'completed', 20_000, 'the task to complete');
      const body = JSON.stringify(mock.task(id!));
      const deliver = (i: FleetInstance) => fetch(i.callbackURL, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      const answers = await Promise.all(three.map(deliver));
      // A delivery that comes while another instance runs onTask is told to come again (503).
      expect(answers.map((r) => r.status).every((status) => status === 200 || status === 503)).toBe(true);
      expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // As the service would: again, to those that said 503; now each is a duplicate.
      const again = await Promise.all(three.filter((_, n) => answers[n]!.status === 503).map(deliver));
      expect(again.map((r) => r.status).every((status) => status === 200)).toBe(true);
      expect(three.flatMap((i) => i.messages.filter((m) => m.event === 'onTask'))).toHaveLength(1);
    };
    await Promise.all([variant([NR, NR, NR]), variant([IO, IO, IO]), variant([NR, IO, IO])]);
  }, 30_000);

  it('three instances × 40 waits under a fleet cap of 20/s never exceed it at the service in any second', async () => {
    const three = await start([NR, IO, NR], { maxPollsPerSecond: 20 });
    const ids = await Promise.all(three.map((i) => i.submit(40)));
    const mark = log.length;
    await Promise.all(three.map((i, n) => i.wait(ids[n]!, { initialDelay: 0 })));
    await eventually(() => three.every((i) => i.resolved().length === 40), 60_000, 'every wait');
    const queries = taskQueries(log.slice(mark));
    expect(queries.length).toBeGreaterThanOrEqual(120);
    // Over the cap only while an instance has lost Redis (its own budget then): say so if it happens.
    const logs = three.flatMap((i) => i.messages.filter((m) => m.event === 'log').map((m) => m.message));
    expect(peakOfRequests(queries), logs.join('\n')).toBeLessThanOrEqual(20);
  }, 90_000);

  it('three instances waiting on the same 20 tasks send at most 1.5 times the queries of one', async () => {
    const [solo] = await start([IO], { maxPollsPerSecond: 100 });
    const soloIds = await solo!.submit(20);
    const first = log.length;
    await solo!.wait(soloIds);
    await eventually(() => solo!.resolved().length === 20, 30_000, 'the solo waits');
    const one = taskQueries(log.slice(first)).length;
    const three = await start([IO, NR, IO], { maxPollsPerSecond: 100 });
    const ids = await three[0]!.submit(20);
    const mark = log.length;
    await Promise.all(three.map((i) => i.wait(ids)));
    await eventually(() => three.every((i) => i.resolved().length === 20), 30_000, 'the fleet waits');
    expect(taskQueries(log.slice(mark)).length).toBeLessThanOrEqual(1.5 * one);
  }, 60_000);

  it('SIGKILL a node-redis instance with 30 pending waits: an ioredis one lists all 30 in pending() and gets every result', async () => {
    const [doomed, survivor] = await start([NR, IO]);
    const before = posts();
    const ids = await doomed!.submit(30);
    await doomed!.wait(ids);
    expect(await survivor!.pending()).toEqual([]); // its owner is alive
    doomed!.kill();
    const pending = await survivor!.pendingOnce(30);
    expect(new Set(pending)).toEqual(new Set(ids));
    await survivor!.wait(pending);
    await eventually(() => survivor!.resolved().length === 30, 30_000, 'the resumed waits');
    expect(await survivor!.pending()).toEqual([]);
    expect(posts() - before).toBe(30);
  }, 60_000);

  it('SIGKILL the master of the fleet’s keys mid-run: every wait resolves, a callback during the failover is answered 2xx, sharing resumes after the promotion', async () => {
    const [a, b] = await start([NR, IO]);
    const ids = await a!.submit(20, true);
    await b!.wait(ids);
    const master = await cluster.masterOf('any:{journal}');
    await cluster.kill(master);
    // A callback that comes while the cluster fails over is handled (per-process dedupe) and acknowledged.
    const [late] = await a!.submit(1);
    await eventually(() => (mock.task(late!) as { status?: string } | undefined)?.status === 'completed', 20_000, 'the task to complete');
    const during = await fetch(b!.callbackURL, { method: 'POST', body: JSON.stringify(mock.task(late!)), headers: { 'content-type': 'application/json' } });
    expect(during.status).toBe(200);
    await eventually(() => b!.resolved().length === 20, 60_000, 'the waits during the failover');
    expect(b!.messages.filter((m) => m.event === 'rejected')).toEqual([]);
    await cluster.waitHealthy();
    for (const x of [a, b]) await eventually(() => x!.messages.some((m) => m.event === 'log' && /Redis is back/.test(m.message ?? '')), 20_000, 'Redis back');
    for (const x of [a, b]) expect(x!.messages.filter((m) => m.event === 'log' && /Redis is unavailable/.test(m.message ?? ''))).toHaveLength(1);
    // The callbacks of the tasks that ended meanwhile were all acknowledged at the first try.
    expect(mock.callbackDeliveries.filter((d) => ids.includes(d.taskId)).every((d) => d.ok && d.attempt === 1)).toBe(true);
    // Sharing resumed: a wake-up across instances again, with no query after the callback.
    const [id] = await a!.submit(1, true);
    await b!.wait([id!], NEXT_QUERY_IN_A_MINUTE);
    await a!.until((m) => m.event === 'onTask' && m.id === id, 30_000);
    await b!.until((m) => m.event === 'resolved' && m.id === id, 30_000);
    await cluster.restart(master);
    await cluster.waitHealthy();
  }, 90_000);
});
