// omnimedia/redis on a Redis Cluster (3 masters + 3 replicas, test/helpers/redis-cluster.ts)
// when the master of the fleet's journal is SIGKILLed mid-run: what a failover costs a user.
// Three coordinations in this process stand for instances (node-redis `createCluster`, ioredis
// `Cluster`, and node-redis with a slot map that is never refreshed on reconnection, as before
// node-redis 6: its issue 2806); one of them records a journal entry (a submission) every 5 ms
// throughout. Measured from the SIGKILL: the outage seen, the replica promoted (the cluster
// whole again), sharing back on each instance; the slowest journal write meanwhile (what a
// submission waited for Redis), warnings per instance, acknowledged entries missing after.
// The cluster's `cluster-node-timeout` is 1 s here; a failover takes about that plus an
// election, so with the default 15 s, count 15 s more on every figure but the slowest write.
import { createCluster } from 'redis';
import { Cluster } from 'ioredis';
import { redisCoordination, type RedisClientLike } from 'omnimedia/redis';
import { CLUSTER_AVAILABLE, RedisCluster } from '../../test/helpers/redis-cluster.ts';
import type { BenchTable } from '../run.ts';

const RUNS = Number(process.env.RUNS ?? 3);
const PREFIX = 'fo:';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Kind = 'node-redis' | 'ioredis' | 'node-redis, stale slot map';
const KINDS: Kind[] = ['node-redis', 'ioredis', 'node-redis, stale slot map'];

interface Outcome {
  outageSeenMs: number;
  promotedMs: number;
  backMs: Record<Kind, number>;
  slowestWriteMs: number;
  warnings: number[];
  acknowledged: number;
  missing: number;
}

async function connect(cluster: RedisCluster, kind: Kind): Promise<{ redis: RedisClientLike; close(): void }> {
  if (kind === 'ioredis') {
    const io = new Cluster(cluster.ports.slice(0, 2).map((port) => ({ host: '127.0.0.1', port })));
    io.on('error', () => {});
    return { redis: io, close: () => io.disconnect() };
  }
  const client = createCluster({
    rootNodes: cluster.urls.slice(0, 2).map((url) => ({ url })),
    ...(kind === 'node-redis' ? {} : { topologyRefreshOnReconnectionAttemptStrategy: false as const }),
  });
  client.on('error', () => {});
  await client.connect();
  return { redis: client as unknown as RedisClientLike, close: () => client.destroy() };
}

async function once(cluster: RedisCluster): Promise<Outcome> {
  const instances = await Promise.all(
    KINDS.map(async (kind) => {
      const warnings: { at: number; message: string }[] = [];
      const logger = { error() {}, info() {}, debug() {}, warn: (message: string) => void warnings.push({ at: Date.now(), message }) };
      const { redis, close } = await connect(cluster, kind);
      const coordination = redisCoordination(redis, { prefix: PREFIX, leaseMs: 1_000, commandTimeoutMs: 500, logger });
      return { kind, coordination, warnings, close };
    }),
  );
  const writer = instances[0]!.coordination;
  await sleep(1_000);
  const acknowledged: string[] = [];
  let slowestWriteMs = 0;
  let recording = true;
  const recorder = (async () => {
    for (let i = 0; recording; i++) {
      const started = Date.now();
      await writer.journal.record({ task_id: `fo_${i}`, kind: 'image_generation', submitted_at: started });
      slowestWriteMs = Math.max(slowestWriteMs, Date.now() - started);
      acknowledged.push(`fo_${i}`);
      await sleep(5);
    }
  })();
  await sleep(500);
  const master = await cluster.masterOf(`${PREFIX}{journal}`);
  slowestWriteMs = 0;
  const killed = Date.now();
  await cluster.kill(master);
  const deadline = killed + 60_000;
  const all = (test: (i: (typeof instances)[number]) => boolean) => instances.every(test);
  while (!all((i) => i.warnings.length > 0) && Date.now() < deadline) await sleep(10);
  const outageSeenMs = Math.max(...instances.map((i) => (i.warnings[0]?.at ?? Number.NaN) - killed));
  await cluster.waitHealthy();
  const promotedMs = Date.now() - killed;
  while (!all((i) => /Redis is back/.test(i.warnings.at(-1)?.message ?? '')) && Date.now() < deadline) await sleep(10);
  const backMs = Object.fromEntries(instances.map((i) => [i.kind, (i.warnings.find((w) => /Redis is back/.test(w.message))?.at ?? Number.NaN) - killed])) as Record<Kind, number>;
  await sleep(1_000);
  recording = false;
  await recorder;
  await sleep(1_500); // the entries written while it was down are sent again at the next heartbeats
  const listed = new Set((await instances[1]!.coordination.journal.list()).map((e) => e.task_id));
  const missing = acknowledged.filter((id) => !listed.has(id)).length;
  const warnings = instances.map((i) => i.warnings.length);
  for (const i of instances) {
    await i.coordination.close();
    i.close();
  }
  await cluster.restart(master);
  await cluster.waitHealthy();
  await cluster.flush();
  return { outageSeenMs, promotedMs, backMs, slowestWriteMs, warnings, acknowledged: acknowledged.length, missing };
}

export default async (): Promise<BenchTable> => {
  if (!CLUSTER_AVAILABLE) return { title: 'failover: skipped (no redis-server or redis-cli on the PATH; apt-get install redis-server redis-tools)', columns: ['measure'], rows: [] };
  const cluster = new RedisCluster();
  await cluster.start();
  try {
    const runs: Outcome[] = [];
    for (let n = 0; n < RUNS; n++) runs.push(await once(cluster));
    const s = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'never');
    const each = (cell: (o: Outcome) => string) => runs.map(cell);
    return {
      title: `failover: SIGKILL the master of the fleet's journal (3 + 3 cluster, cluster-node-timeout 1 s), a journal write every 5 ms, ${RUNS} runs`,
      columns: ['measure', ...runs.map((_, n) => `run ${n + 1}`)],
      rows: [
        ['outage seen by every instance (its one warning)', ...each((o) => s(o.outageSeenMs))],
        ['replica promoted: every slot served again', ...each((o) => s(o.promotedMs))],
        ...KINDS.map((kind) => [`sharing back: ${kind}`, ...each((o) => s(o.backMs[kind]))]),
        ['slowest journal write meanwhile (a submission waits this long at most)', ...each((o) => `${o.slowestWriteMs} ms`)],
        ['warnings per instance (outage + back)', ...each((o) => o.warnings.join(' / '))],
        ['acknowledged journal entries missing afterwards', ...each((o) => `${o.missing} of ${o.acknowledged}`)],
      ],
      notes: [
        'Meanwhile every wait polls locally, handlers dedupe per process and answer 2xx (test/redis/cluster-fleet.test.ts), and the entries recorded while down are kept in memory and written again once Redis is back.',
        "A node-redis client that never refreshes its slot map routes the moved slots to the dead node: the coordination then goes through a cluster client of its own, made once the cluster answers again (1 s of grace for the caller's client to catch up).",
      ],
    };
  } finally {
    await cluster.stop();
  }
};
