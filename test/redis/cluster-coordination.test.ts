// redisCoordination's ports on a real Redis Cluster (3 masters + 3 replicas, test/helpers/
// redis-cluster.ts), in this process: coordinations on node-redis `createCluster` and ioredis
// `Cluster` clients stand for instances, mixed on one prefix. One cluster for the file; the
// failovers (a master SIGKILLed, its replica promoted) come last. Real time: the cluster's own
// failure detection and the clients' sockets are the subject here.
import { createCluster } from 'redis';
import { Cluster } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redisCoordination, type RedisClientLike } from 'omnimedia/redis';
import { expectOutagePairs } from '../helpers/outage-warnings.ts';
import { CLUSTER_AVAILABLE, RedisCluster, keySlot } from '../helpers/redis-cluster.ts';
import { startProxy, startRecorder } from '../proxy/helpers.ts';

type Kind = 'node-redis' | 'ioredis';
const LEASE_MS = 600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(25);
  }
}
const quiet = { error() {}, info() {}, debug() {}, warn() {} };

describe.skipIf(!CLUSTER_AVAILABLE)('redisCoordination on a Redis Cluster', () => {
  const cluster = new RedisCluster();
  const opened: Array<() => Promise<void> | void> = [];

  /** A cluster client of `kind`, as a user would make it. */
  const connect = async (kind: Kind, options: { staleMaps?: boolean; rootPorts?: number[] } = {}): Promise<RedisClientLike> => {
    const roots = options.rootPorts ?? cluster.ports.slice(0, 2);
    if (kind === 'ioredis') {
      const io = new Cluster(roots.map((port) => ({ host: '127.0.0.1', port })));
      io.on('error', () => {});
      opened.push(() => io.disconnect());
      return io;
    }
    const client = createCluster({
      rootNodes: roots.map((port) => ({ url: `redis://127.0.0.1:${port}` })),
      // node-redis before 6 never refreshed its slot map on reconnection attempts (its issue 2806).
      ...(options.staleMaps ? { topologyRefreshOnReconnectionAttemptStrategy: false as const } : {}),
    });
    client.on('error', () => {});
    await client.connect();
    opened.push(() => client.destroy());
    return client as unknown as RedisClientLike;
  };

  /**
   * An instance on a cluster client of `kind`. Its command timeout is 2 s unless a test is about
   * an outage: a command slower than it is an outage by design (DESIGN 8), and at a load of 10 on
   * two cores a 300 ms timeout missed answers that came in time (Node ran the due timer before
   * the socket's data): an upload read back as nothing, a third outage in one failover.
   */
  const instance = async (kind: Kind, options: { prefix?: string; staleMaps?: boolean; rootPorts?: number[]; commandTimeoutMs?: number } = {}) => {
    const warnings: string[] = [];
    const logger = { ...quiet, warn: (message: string) => void warnings.push(message) };
    const redis = await connect(kind, options);
    const coordination = redisCoordination(redis, { prefix: options.prefix ?? 'c:', leaseMs: LEASE_MS, commandTimeoutMs: options.commandTimeoutMs ?? 2_000, logger });
    opened.unshift(() => coordination.close());
    return { coordination, warnings, redis };
  };

  /** Until `count` connections listen on the fleet's sharded channel (subscriptions are asynchronous). */
  const subscribers = async (count: number, channel = 'c:{events}') => {
    const port = await cluster.masterOf(channel);
    await until(async () => Number((await cluster.cli(port, 'PUBSUB', 'SHARDNUMSUB', channel)).trim().split('\n')[1]) >= count, 10_000, `${count} subscribers`);
  };

  beforeAll(async () => {
    await cluster.start();
  }, 60_000);
  afterEach(async () => {
    for (const close of opened.splice(0)) await close();
    await cluster.flush();
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it('the layout: each fleet-wide structure in a slot of its own (the journal with its index), tasks’ keys spread; a tagged prefix puts all in one', async () => {
    expect(keySlot('c:{journal}')).toBe(keySlot('c:{journal}:at'));
    const shared = new Set(await Promise.all(['c:{journal}', 'c:{live}', 'c:{budget}', 'c:{events}'].map((key) => cluster.masterOf(key))));
    expect(shared.size).toBe(3);
    const tasks = new Set(await Promise.all(Array.from({ length: 30 }, (_, i) => cluster.masterOf(`c:lease:task_${i}`))));
    expect(tasks.size).toBe(3);
    expect(new Set(['{c}:{journal}', '{c}:{live}', '{c}:lease:task_1', '{c}:result:task_2'].map(keySlot)).size).toBe(1);
  });

  describe.each(['node-redis', 'ioredis', 'mixed'] as const)('%s', (kinds) => {
    const pair = async () => {
      const a = await instance(kinds === 'ioredis' ? 'ioredis' : 'node-redis');
      const b = await instance(kinds === 'node-redis' ? 'node-redis' : 'ioredis');
      return [a, b] as const;
    };

    it('a lease has one holder, kept while it lives, and passes to another within the lease time after it dies', async () => {
      const [a, b] = await pair();
      for (let i = 0; i < 6; i++) expect(await a.coordination.leases.hold(`task_${i}`)).toBe(true); // over the three masters
      for (let i = 0; i < 6; i++) expect(await b.coordination.leases.hold(`task_${i}`)).toBe(false);
      await sleep(LEASE_MS * 2); // A's heartbeat keeps them
      expect(await b.coordination.leases.hold('task_1')).toBe(false);
      await a.coordination.close(); // A dies
      const died = Date.now();
      while (!(await b.coordination.leases.hold('task_1'))) await sleep(20);
      expect(Date.now() - died).toBeLessThanOrEqual(LEASE_MS + 200);
      expect(a.warnings).toEqual([]);
      expect(b.warnings).toEqual([]);
    });

    it('a callback claim is free, in progress or done across instances, and taken over when its instance died', async () => {
      const [a, b] = await pair();
      expect(await a.coordination.dedupe.claim('task_1:completed')).toBe(true);
      expect(await b.coordination.dedupe.claim('task_1:completed')).toBe('in_progress');
      expect(await a.coordination.dedupe.claim('task_2:completed')).toBe(true);
      await a.coordination.dedupe.complete?.('task_2:completed');
      expect(await b.coordination.dedupe.claim('task_2:completed')).toBe(false);
      await a.coordination.close(); // dies inside onTask of task_1
      await sleep(LEASE_MS + 100);
      expect(await b.coordination.dedupe.claim('task_1:completed')).toBe(true);
      expect(b.warnings).toEqual([]);
    });

    it('an ended task published by one instance reaches the other (sharded pub/sub) and stays readable', async () => {
      const [a, b] = await pair();
      await subscribers(2);
      const heard: string[] = [];
      b.coordination.events.subscribe('task_1', (task) => heard.push(task.status));
      const sent = Date.now();
      a.coordination.events.publish({ task_id: 'task_1', status: 'completed' } as never);
      await until(() => heard.length > 0, 2_000, 'the news');
      expect(Date.now() - sent).toBeLessThan(100);
      // The result key and the message go at once, to two masters: the message may come first.
      await until(async () => (await b.coordination.events.latest?.('task_1'))?.status === 'completed', 2_000, 'the result kept');
    });

    it('the query budget is one sliding second across instances', async () => {
      const [a, b] = await pair();
      const budgets = [a.coordination.budget(5), b.coordination.budget(5)];
      const grants = await Promise.all(Array.from({ length: 10 }, (_, i) => (budgets[i % 2] as ReturnType<typeof a.coordination.budget>).take(Date.now())));
      const granted = grants.filter((g) => 'release' in g) as Array<{ release: () => void }>;
      expect(granted).toHaveLength(5);
      for (const grant of granted) grant.release();
      const released = Date.now();
      // Every answer is in Redis (a ZADD each instance sends when it can) and Redis's clock has
      // passed each: an answer's time is estimated high, by the clock offset's uncertainty, and
      // until Redis's time passes it the slot reads as still in flight ("ask again in 250 ms": a
      // wait for `score <= Date.now() + 100` let a take in 150 ms after the releases, retryAt +401).
      const port = await cluster.masterOf('c:{budget}');
      const redisNow = async () => {
        const [seconds, micros] = (await cluster.cli(port, 'TIME')).trim().split('\n').map(Number);
        return (seconds as number) * 1_000 + Math.floor((micros as number) / 1_000);
      };
      const scores = async () => (await cluster.cli(port, 'ZRANGE', 'c:{budget}', '0', '-1', 'WITHSCORES')).trim().split('\n').filter((_, i) => i % 2 === 1).map(Number);
      await until(
        async () => {
          const [ends, now] = [await scores(), await redisNow()];
          return ends.length === 5 && ends.every((end) => end < released + 1_000 && end <= now);
        },
        2_000,
        'the answers in Redis',
      );
      const next = (await (budgets[1] as ReturnType<typeof a.coordination.budget>).take(Date.now())) as { retryAt: number };
      const answeredAt = Date.now();
      // Not before a second after the answers (a few ms for reading the clocks), nor more than a
      // second after Redis's answer to this take: however long the machine took in between.
      expect(next.retryAt).toBeGreaterThanOrEqual(released + 1_000 - 5);
      expect(next.retryAt).toBeLessThanOrEqual(answeredAt + 1_000 + 5);
    });

    it('the journal: pending() lists the entries of a dead owner, a page at a time', async () => {
      const [a, b] = await pair();
      for (let i = 0; i < 30; i++) await a.coordination.journal.record({ task_id: `task_${i}`, kind: 'image_generation', submitted_at: Date.now() });
      expect(await b.coordination.journal.pending()).toEqual([]);
      expect(await b.coordination.journal.list()).toHaveLength(30);
      await a.coordination.close();
      await sleep(LEASE_MS + 100);
      expect((await b.coordination.journal.pending()).map((e) => e.task_id).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `task_${i}`).sort());
      await b.coordination.journal.adopt('task_0');
      expect(await b.coordination.journal.pending()).toHaveLength(29);
    });

    it('uploads and learned durations are shared; rate limits are one per identity across instances', async () => {
      const [a, b] = await pair();
      const record = { id: 'img_1', url: 'https://cdn.example/img_1.png', expires_at: '2026-12-01T00:00:00Z' } as never;
      await a.coordination.uploads.set('sha:abc', record, 60_000);
      expect(await b.coordination.uploads.get('sha:abc')).toEqual(record);
      a.coordination.durations.add('omni-video', 40_000, 10);
      await expect.poll(() => b.coordination.durations.get('omni-video'), { timeout: 3_000 }).toEqual([40_000]);
      for (const user of ['alice', 'bob', 'carol']) {
        const decisions = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).coordination.rateLimits.take(`submissions:${user}`, 4, 60_000)));
        expect(decisions.filter((d) => d.allowed)).toHaveLength(4);
      }
      expect(a.warnings).toEqual([]);
    });
  });

  it('the proxy’s shared rate limits hold on the cluster: two proxies (node-redis and ioredis, first connected to different nodes) share one limit per identity, identities spread over the masters', async () => {
    const upstream = await startRecorder((_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"task_id":"task_1","status":"pending"}'));
    const byUser = (request: Request) => ({ id: request.headers.get('x-user') ?? 'anonymous' });
    const users = ['erin', 'frank', 'grace'];
    // Each identity's limit is one key (one slot); these three lie on three masters.
    const keys = users.map((user) => `c:limit:submissions:${user}`);
    expect(new Set(await Promise.all(keys.map((key) => cluster.masterOf(key)))).size).toBe(3);
    const proxies = await Promise.all(
      (['node-redis', 'ioredis'] as const).map(async (kind, i) =>
        startProxy({
          upstream: upstream.url,
          authorize: byUser,
          rateLimit: { submissions: { limit: 3, windowMs: 60_000 } },
          coordination: (await instance(kind, { rootPorts: cluster.ports.slice(2 * i, 2 * i + 2) })).coordination,
        }),
      ),
    );
    try {
      const submit = (url: string, user: string) =>
        fetch(`${url}/api/omnimedia/v1/images/generations`, { method: 'POST', headers: { 'x-user': user, 'content-type': 'application/json' }, body: '{"model":"m","prompt":"p"}' });
      const [one, two] = proxies.map((p) => p.url) as [string, string];
      for (const user of users) {
        const statuses = [];
        for (const url of [one, two, one, two, one]) statuses.push((await submit(url, user)).status);
        expect(statuses).toEqual([200, 200, 200, 429, 429]);
      }
      expect(upstream.requests).toHaveLength(9);
      for (const key of keys) expect((await cluster.cli(await cluster.masterOf(key), 'ZCARD', key)).trim()).toBe('3');
    } finally {
      await Promise.all(proxies.map((p) => p.close()));
      await upstream.close();
    }
  });

  it('a journal write waits for a replica of the journal’s own master, whatever the replicas of the other structures’ masters', async () => {
    const a = await instance('node-redis');
    const journalMaster = await cluster.masterOf('c:{journal}');
    const liveMaster = await cluster.masterOf('c:{live}');
    expect(liveMaster).not.toBe(journalMaster);
    // The live set's master loses its replica; the journal's keeps its own.
    const [replica] = await cluster.replicasOf(liveMaster);
    await cluster.kill(replica!);
    await until(async () => !/state=online/.test(await cluster.cli(liveMaster, 'INFO', 'replication')), 10_000, 'the replica gone');
    await sleep(12 * (LEASE_MS / 3)); // heartbeats count replicas again (every tenth)
    const waits = async () => Number(/cmdstat_wait:calls=(\d+)/.exec(await cluster.cli(journalMaster, 'INFO', 'commandstats'))?.[1] ?? 0);
    const before = await waits();
    for (let i = 0; i < 5; i++) await a.coordination.journal.record({ task_id: `w_${i}`, kind: 'image_generation', submitted_at: Date.now() });
    expect((await waits()) - before).toBeGreaterThanOrEqual(5);
    await cluster.restart(replica!);
    await cluster.waitHealthy();
  }, 30_000);

  it('a server without sharded pub/sub (Redis 6.2): every instance falls back to classic PUBLISH, and wake-ups still cross', async () => {
    const without = async (kind: Kind) => {
      const redis = await connect(kind);
      // COMMAND INFO SPUBLISH answers nil, as Redis 6.2 does.
      const client = redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const method = kind === 'ioredis' ? 'call' : 'sendCommand';
      const send = (client[method] as (...args: unknown[]) => Promise<unknown>).bind(client);
      client[method] = (...args: unknown[]) => {
        const words = args.flat().map(String);
        return words.includes('COMMAND') && words.includes('SPUBLISH') ? Promise.resolve([null]) : send(...args);
      };
      const coordination = redisCoordination(redis, { prefix: 'c:', leaseMs: LEASE_MS, logger: quiet });
      opened.unshift(() => coordination.close());
      return coordination;
    };
    const a = await without('node-redis');
    const b = await without('ioredis');
    const heard: string[] = [];
    b.events.subscribe('task_1', (task) => heard.push(task.status));
    const classic = async () => (await Promise.all(cluster.ports.map((port) => cluster.cli(port, 'PUBSUB', 'NUMSUB', 'c:{events}')))).reduce((n, out) => n + Number(out.trim().split('\n')[1] ?? 0), 0);
    await until(async () => (await classic()) >= 2, 10_000, 'two classic subscribers');
    await sleep(200);
    a.events.publish({ task_id: 'task_1', status: 'completed' } as never);
    await until(() => heard.length > 0, 3_000, 'the news');
  });

  it('the fleet’s slot moves to another master while instances run: wake-ups go on crossing', async () => {
    const a = await instance('node-redis');
    const b = await instance('ioredis');
    await subscribers(2);
    const heard: string[] = [];
    b.coordination.events.subscribe('task_1', (task) => heard.push(task.status));
    const slot = keySlot('c:{events}');
    const from = await cluster.masterOf('c:{events}');
    const to = (await cluster.masters()).find((m) => m.port !== from) as { port: number };
    for (let i = 0; i < 5; i++) await a.coordination.journal.record({ task_id: `task_${i}`, kind: 'image_generation', submitted_at: Date.now() });
    await cluster.moveSlot(slot, to.port);
    expect(await cluster.masterOf('c:{events}')).toBe(to.port);
    // The subscribers follow the slot (the clients, or the coordination's own ping that did not come back).
    await until(
      async () => {
        a.coordination.events.publish({ task_id: 'task_1', status: 'completed' } as never);
        await sleep(100);
        return heard.length > 0;
      },
      LEASE_MS * 6,
      'a wake-up after the move',
    );
    expect([...a.warnings, ...b.warnings]).toEqual([]);
    expect(await b.coordination.journal.list()).toHaveLength(5);
    expect(await b.coordination.leases.hold('task_9')).toBe(true);
    expect(await a.coordination.leases.hold('task_9')).toBe(false);
  }, 30_000);

  it('SIGKILL the master of the fleet’s keys: one warning, local fallbacks meanwhile, no acknowledged journal entry lost, sharing resumes by itself (a node-redis client with a stale slot map too)', async () => {
    // 300 ms: the outage this test is about must be seen while the cluster fails over (with 1 s an
    // instance's commands waited the failover out and it saw none). At a load of 10 a late timer
    // then made a third outage pair now and then: left as it is (issue 41's closing note).
    const a = await instance('node-redis', { commandTimeoutMs: 300 });
    const b = await instance('ioredis', { commandTimeoutMs: 300 });
    const c = await instance('node-redis', { staleMaps: true, commandTimeoutMs: 300 });
    await subscribers(3);
    const master = await cluster.masterOf('c:{journal}');
    const acknowledged: string[] = [];
    let recording = true;
    const recorder = (async () => {
      for (let i = 0; recording; i++) {
        await a.coordination.journal.record({ task_id: `fo_${i}`, kind: 'image_generation', submitted_at: Date.now() });
        acknowledged.push(`fo_${i}`);
        await sleep(5);
      }
    })();
    await sleep(200);
    await cluster.kill(master);
    // While the cluster fails over, every call answers from local state, at once or within its timeout.
    await until(() => a.warnings.length > 0 && b.warnings.length > 0, 10_000, 'the outage seen');
    expect(await b.coordination.leases.hold('task_x')).toBe(true); // polls locally
    expect(await b.coordination.dedupe.claim('task_x:completed')).toBe(true); // dedupes per process
    await cluster.waitHealthy();
    const promoted = Date.now();
    for (const x of [a, b, c]) await until(() => /Redis is back/.test(x.warnings.at(-1) ?? ''), 20_000, 'Redis back for every instance');
    const resumed = Date.now();
    recording = false;
    await recorder;
    // One warning when it went, one line when it came back: not a line per command. (In a CI run
    // an instance logged two pairs in one failover: a probe answered, a command after it missed
    // its 300 ms again.)
    for (const x of [a, b, c]) expectOutagePairs(x.warnings, 2);
    // Every record that resolved is on the journal (a replica had it, or it was written again).
    await until(async () => new Set((await b.coordination.journal.list()).map((e) => e.task_id)).size >= acknowledged.length, 10_000, 'the journal complete');
    const listed = new Set((await b.coordination.journal.list()).map((e) => e.task_id));
    expect(acknowledged.filter((id) => !listed.has(id))).toEqual([]);
    // Sharing resumed: wake-ups cross, leases are one again, for the instance whose client missed the failover too.
    await subscribers(3);
    // The client that never refreshes its slot map by itself is replaced by one of the coordination's own.
    expect(c.warnings[1]).toMatch(/through a cluster client of its own/);
    for (const [from, to] of [[a, c], [c, b], [b, a]] as const) {
      const heard: string[] = [];
      const id = `after_${Math.random()}`;
      to.coordination.events.subscribe(id, (task) => heard.push(task.status));
      // Sent until heard, as in the slot move above: a subscription renewed after the outage may
      // still be connecting while the replaced one is counted (one run in four lost the first).
      await until(
        async () => {
          from.coordination.events.publish({ task_id: id, status: 'completed' } as never);
          await sleep(100);
          return heard.length > 0;
        },
        3_000,
        'a wake-up after the failover',
      );
    }
    expect(await c.coordination.leases.hold('task_y')).toBe(true);
    expect(await a.coordination.leases.hold('task_y')).toBe(false);
    expect(await b.coordination.leases.hold('task_y')).toBe(false);
    expect(resumed - promoted).toBeLessThan(10_000);
    await cluster.restart(master);
    await cluster.waitHealthy();
  }, 60_000);
});
