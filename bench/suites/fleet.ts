// A fleet of 4 processes (bench/helpers/fleet-child.ts, the built package) waits on 1,000 tasks
// that end at random within 5..60 s; each task's callback is delivered to a random instance.
// Run against a fresh task service each time (bench/servers/fleet-task-server.ts): the
// instances sharing one coordination on a local redis-server, 4 independent clients, the
// default verification, and the shared coordination on a Redis Cluster of 3 masters + 3
// replicas (test/helpers/redis-cluster.ts). The service counts the task queries; Redis counts
// its commands (on a cluster, the masters' sum). Needs redis-server and redis-cli (Debian's
// packages). FLEET_SHARED_ONLY=1 runs the shared columns alone (one node, cluster);
// FLEET_COMMANDSTATS=1 prints Redis's per-command counts (where the commands of a wait go).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createClient } from 'redis';
import { CLUSTER_AVAILABLE, RedisCluster } from '../../test/helpers/redis-cluster.ts';
import { REDIS_AVAILABLE, RedisServer } from '../../test/helpers/redis-server.ts';
import type { BenchTable } from '../run.ts';
import { percentile } from '../lib/stats.ts';

const INSTANCES = 4;
const WAITS = 1_000;
const CAP = 20; // maxPollsPerSecond, the default, given to every client

interface Outcome {
  queries: number;
  peak: number;
  resolved: number;
  /** Waits in all: one per task, or two (paired). */
  waits: number;
  rejected: number;
  /** Callback delivered to an instance other than the waiter, to the wait's end, ms. */
  crossLags: number[];
  seconds: number;
  redisCommands: number | undefined;
  /** Commands the instances sent (a script is one). */
  roundTrips: number;
  /** On a cluster: the busiest master's share of the commands / of the memory added. */
  busiest?: string;
}

/** Where the fleet's coordination is: one redis-server, a cluster (per master: commands, memory), or none. */
type Target = { url: string; prefix?: string; commands(): Promise<number>; perMaster?(): Promise<number[][]>; stats(): Promise<string> } | undefined;

const single = (url: string): Target => ({ url, commands: () => totalCommands(url), stats: () => commandStats(url) });
const onCluster = (cluster: RedisCluster, prefix = 'bench:'): Target => ({
  url: `cluster:${cluster.urls.join(',')}`,
  prefix,
  commands: async () => [...(await cluster.commandsProcessed()).values()].reduce((a, b) => a + b, 0),
  // Each master: [commands processed, bytes of memory in use].
  perMaster: async () =>
    Promise.all(
      (await cluster.masters()).map(async (m) => {
        const info = await cluster.cli(m.port, 'INFO');
        return [Number(/total_commands_processed:(\d+)/.exec(info)?.[1]), Number(/used_memory:(\d+)/.exec(info)?.[1])];
      }),
    ),
  stats: async () => (await Promise.all((await cluster.masters()).map(async (m) => `master ${m.port}:\n${await cluster.cli(m.port, 'INFO', 'commandstats')}`))).join('\n'),
});

/** The busiest master's share of what the masters did (commands) and hold (memory added), as percentages. */
function busiest(before: number[][], after: number[][]): string {
  const share = (column: number) => {
    const deltas = after.map((m, i) => Math.max(0, (m[column] ?? 0) - (before[i]?.[column] ?? 0)));
    const total = deltas.reduce((a, b) => a + b, 0);
    return total > 0 ? `${Math.round((100 * Math.max(...deltas)) / total)} %` : 'n/a';
  };
  return `${share(0)} / ${share(1)}`;
}

async function run(target: Target, verify: boolean, paired = false): Promise<Outcome> {
  const server = fork(new URL('../servers/fleet-task-server.ts', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const children: ChildProcess[] = [];
  try {
    const [{ port }] = (await once(server, 'message')) as [{ port: number }];
    const baseURL = `http://127.0.0.1:${port}`;
    const commandsBefore = target ? await target.commands() : 0;
    const mastersBefore = await target?.perMaster?.();
    // Each wait's end: a task has one (its submitter's) or, paired, two (the submitter's and another instance's).
    const ends = new Map<string, { at: number; by: number }[]>();
    let resolved = 0;
    let rejected = 0;
    let roundTrips = 0;
    const origins: string[] = [];
    const done: Promise<unknown>[] = [];
    for (let n = 0; n < INSTANCES; n++) {
      const child = fork(new URL('../helpers/fleet-child.ts', import.meta.url), [baseURL, String(WAITS / INSTANCES), target?.url ?? 'none', String(verify), ...(target?.prefix ? [target.prefix] : [])], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, FLEET_MODE: paired ? 'paired' : 'single' },
      });
      children.push(child);
      child.on('message', (message: { event: string; id?: string; at?: number }) => {
        if (message.event === 'resolved') {
          resolved++;
          ends.set(message.id as string, [...(ends.get(message.id as string) ?? []), { at: message.at as number, by: n }]);
        }
        // Paired: the next instance waits on each task this one submitted.
        if (message.event === 'submitted') children[(n + 1) % INSTANCES]?.send({ event: 'wait', id: message.id });
        if (message.event === 'rejected') rejected++;
      });
      const [ready] = (await once(child, 'message')) as [{ origin: string }];
      origins.push(ready.origin);
      done.push(
        new Promise((resolve) =>
          child.on('message', (m: { event: string; roundTrips?: number }) => {
            if (m.event !== 'done') return;
            roundTrips += m.roundTrips ?? 0;
            resolve(undefined);
          }),
        ),
      );
    }
    await fetch(`${baseURL}/__instances`, { method: 'POST', body: JSON.stringify({ origins }) });
    const started = Date.now();
    for (const child of children) child.send('go');
    await Promise.all(done);
    const seconds = (Date.now() - started) / 1000;
    const stats = (await (await fetch(`${baseURL}/__stats`)).json()) as { queries: number; peakSliding: number; deliveries: { id: string; to: number; at: number }[] };
    const crossLags = stats.deliveries.flatMap((d) => (ends.get(d.id) ?? []).flatMap((end) => (end.by !== d.to ? [Math.max(0, end.at - d.at)] : [])));
    const redisCommands = target ? (await target.commands()) - commandsBefore : undefined;
    const mastersAfter = await target?.perMaster?.();
    const spread = mastersBefore && mastersAfter ? busiest(mastersBefore, mastersAfter) : undefined;
    if (target && process.env.FLEET_COMMANDSTATS) console.error(await target.stats());
    for (const child of children) child.send('close');
    await Promise.all(children.map((child) => once(child, 'exit')));
    return { queries: stats.queries, peak: stats.peakSliding, resolved, waits: paired ? 2 * WAITS : WAITS, rejected, crossLags, seconds, redisCommands, roundTrips, ...(spread ? { busiest: spread } : {}) };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
    server.disconnect();
    server.kill();
  }
}

async function totalCommands(url: string): Promise<number> {
  const redis = await createClient({ url }).connect();
  const info = await redis.info('stats');
  redis.destroy();
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

async function commandStats(url: string): Promise<string> {
  const redis = await createClient({ url }).connect();
  const info = await redis.info('commandstats');
  redis.destroy();
  return info;
}

export default async (): Promise<BenchTable> => {
  if (!REDIS_AVAILABLE || !CLUSTER_AVAILABLE) {
    return { title: 'fleet: skipped (no redis-server or redis-cli on the PATH; apt-get install redis-server redis-tools)', columns: ['measure'], rows: [] };
  }
  const redis = new RedisServer();
  const cluster = new RedisCluster();
  await redis.start();
  try {
    // Handlers trust the callback URL's token (callbackSecret) and spend no query on it; the
    // third run shows what the default verification (one query per delivery) adds.
    // Task ids restart at task-1 with each run's service: each run starts from an empty Redis.
    const shared = await run(single(redis.url), false);
    const independent = process.env.FLEET_SHARED_ONLY ? undefined : await run(undefined, false);
    redis.flush();
    const verified = process.env.FLEET_SHARED_ONLY ? undefined : await run(single(redis.url), true);
    redis.flush();
    // The issue's second scenario: each task waited on by two instances, half of them ended by a callback.
    const pairedShared = await run(single(redis.url), false, true);
    await redis.stop();
    await cluster.start();
    const clustered = await run(onCluster(cluster), false);
    await cluster.flush();
    // The other layout, for comparison: a prefix with a hash tag of its own puts every key in one slot.
    const oneSlot = await run(onCluster(cluster, '{bench}:'), false);
    await cluster.flush();
    const pairedClustered = await run(onCluster(cluster), false, true);
    const runs = [shared, independent, verified, clustered, oneSlot, pairedShared, pairedClustered];
    const ms = (n: number) => (Number.isFinite(n) ? (n >= 1_000 ? `${(n / 1000).toFixed(1)} s` : `${n.toFixed(0)} ms`) : 'n/a');
    const each = (cell: (o: Outcome) => string) => runs.map((o) => (o ? cell(o) : '—'));
    const lag = (o: Outcome) => `${ms(percentile(o.crossLags, 50))} / ${ms(percentile(o.crossLags, 99))}`;
    const perTask = (n: number) => `${n} (${(n / WAITS).toFixed(2)} per task)`;
    const redisFigure = (o: Outcome, n: number) => (o.redisCommands === undefined ? '—' : (n / WAITS).toFixed(1));
    return {
      title: `fleet: ${INSTANCES} processes, ${WAITS} tasks ending within 5..60 s, each callback to a random instance`,
      columns: [
        'measure',
        'shared (one Redis), token-checked callbacks',
        `${INSTANCES} independent clients`,
        'shared, verify: true (default)',
        'shared on a Redis Cluster (3 + 3), token-checked',
        'cluster, prefix `{bench}:` (all in one slot)',
        'one Redis, each task waited on by 2 instances, half with a callback',
        'cluster, each task waited on by 2 instances, half with a callback',
      ],
      rows: [
        ['task queries in all', ...each((o) => perTask(o.queries))],
        [
          `peak task queries in any 1 s window (cap ${CAP}/s)`,
          ...each((o) => (o === independent ? `${o.peak} (${INSTANCES} × ${CAP} = ${INSTANCES * CAP})` : o === verified ? `${o.peak} (polls ≤ ${CAP}, + verifications)` : `${o.peak} (fleet cap ${CAP})`)),
        ],
        [`callback on another instance → wait resolved, p50 / p99`, ...each(lag)],
        ['callbacks delivered to another instance than the waiter', ...each((o) => String(o.crossLags.length))],
        ['waits resolved', ...each((o) => `${o.resolved}/${o.waits}${o.rejected ? ` (${o.rejected} rejected)` : ''}`)],
        ['time until all resolved', ...each((o) => `${o.seconds.toFixed(1)} s`)],
        ['Redis round trips per task (a script is one)', ...each((o) => redisFigure(o, o.roundTrips))],
        ['Redis commands executed per task (inside scripts too)', ...each((o) => redisFigure(o, o.redisCommands ?? 0))],
        ['busiest master: its share of the commands / of the memory added', ...each((o) => o.busiest ?? '—')],
      ],
      notes: [
        'Targets: p99 of the cross-instance lag at most 100 ms on one Redis, 50 ms on a cluster; at most 30 Redis commands per task; the fleet never above its cap.',
        'Without coordination a callback helps only the instance it lands on (1 in 4); the other waits learn the end from their next query, and each client spends its own 20 queries per second.',
        "A handler's verification (verify: true, the default) is one task query per delivery, outside the poll budget: the service paces it, and holding it back would hold back every wait it ends.",
        'Redis counts include the heartbeats (one script per instance every lease time / 3, however many leases it holds) and the journal (written at submission, cleared at the end); on a cluster, the commands the masters executed (replication to the replicas is not counted), WAIT for a replica included.',
      ],
    };
  } finally {
    await redis.stop();
    await cluster.stop();
  }
};
