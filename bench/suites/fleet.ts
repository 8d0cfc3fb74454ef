// A fleet of 4 processes (bench/helpers/fleet-child.ts, the built package) waits on 1,000 tasks
// that end at random within 5..60 s; each task's callback is delivered to a random instance.
// Run twice against a fresh task service (bench/servers/fleet-task-server.ts): the instances
// sharing one coordination on a local redis-server, and 4 independent clients. The service
// counts the task queries; Redis counts its commands. Needs redis-server (Debian's package).
// FLEET_SHARED_ONLY=1 runs the shared column alone; FLEET_COMMANDSTATS=1 prints Redis's
// per-command counts (where the commands of a wait go).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createClient } from 'redis';
import { REDIS_AVAILABLE, RedisServer } from '../../test/helpers/redis-server.ts';
import type { BenchTable } from '../run.ts';

const INSTANCES = 4;
const WAITS = 1_000;
const CAP = 20; // maxPollsPerSecond, the default, given to every client

interface Outcome {
  queries: number;
  peak: number;
  resolved: number;
  rejected: number;
  /** Callback delivered to an instance other than the waiter, to the wait's end, ms. */
  crossLags: number[];
  seconds: number;
  redisCommands: number | undefined;
  /** Commands the instances sent (a script is one). */
  roundTrips: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function run(redisUrl: string | undefined, verify: boolean): Promise<Outcome> {
  const server = fork(new URL('../servers/fleet-task-server.ts', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const children: ChildProcess[] = [];
  try {
    const [{ port }] = (await once(server, 'message')) as [{ port: number }];
    const baseURL = `http://127.0.0.1:${port}`;
    const commandsBefore = redisUrl ? await totalCommands(redisUrl) : 0;
    const resolvedAt = new Map<string, { at: number; by: number }>();
    let rejected = 0;
    let roundTrips = 0;
    const origins: string[] = [];
    const done: Promise<unknown>[] = [];
    for (let n = 0; n < INSTANCES; n++) {
      const child = fork(new URL('../helpers/fleet-child.ts', import.meta.url), [baseURL, String(WAITS / INSTANCES), redisUrl ?? 'none', String(verify)], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      child.on('message', (message: { event: string; id?: string; at?: number }) => {
        if (message.event === 'resolved') resolvedAt.set(message.id as string, { at: message.at as number, by: n });
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
    const crossLags = stats.deliveries.flatMap((d) => {
      const end = resolvedAt.get(d.id);
      return end && end.by !== d.to ? [Math.max(0, end.at - d.at)] : [];
    });
    const redisCommands = redisUrl ? (await totalCommands(redisUrl)) - commandsBefore : undefined;
    if (redisUrl && process.env.FLEET_COMMANDSTATS) console.error(await commandStats(redisUrl));
    for (const child of children) child.send('close');
    await Promise.all(children.map((child) => once(child, 'exit')));
    return { queries: stats.queries, peak: stats.peakSliding, resolved: resolvedAt.size, rejected, crossLags, seconds, redisCommands, roundTrips };
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
  if (!REDIS_AVAILABLE) {
    return { title: 'fleet: skipped (no redis-server on the PATH; apt-get install redis-server)', columns: ['measure'], rows: [] };
  }
  const redis = new RedisServer();
  await redis.start();
  try {
    // Handlers trust the callback URL's token (callbackSecret) and spend no query on it; the
    // third run shows what the default verification (one query per delivery) adds.
    // Task ids restart at task-1 with each run's service: each run starts from an empty Redis.
    const shared = await run(redis.url, false);
    const independent = process.env.FLEET_SHARED_ONLY ? shared : await run(undefined, false);
    redis.flush();
    const verified = process.env.FLEET_SHARED_ONLY ? shared : await run(redis.url, true);
    const runs = [shared, independent, verified];
    const ms = (n: number) => (Number.isFinite(n) ? (n >= 1_000 ? `${(n / 1000).toFixed(1)} s` : `${n.toFixed(0)} ms`) : 'n/a');
    const lag = (o: Outcome) => `${ms(percentile(o.crossLags, 50))} / ${ms(percentile(o.crossLags, 99))}`;
    const perWait = (n: number) => `${n} (${(n / WAITS).toFixed(2)} per wait)`;
    return {
      title: `fleet: ${INSTANCES} processes, ${WAITS} waits, tasks ending within 5..60 s, each callback to a random instance`,
      columns: ['measure', 'shared (Redis), token-checked callbacks', `${INSTANCES} independent clients`, 'shared, verify: true (default)'],
      rows: [
        ['task queries in all', ...runs.map((o) => perWait(o.queries))],
        [
          `peak task queries in any 1 s window (cap ${CAP}/s)`,
          `${shared.peak} (fleet cap ${CAP})`,
          `${independent.peak} (${INSTANCES} × ${CAP} = ${INSTANCES * CAP})`,
          `${verified.peak} (polls ≤ ${CAP}, + verifications)`,
        ],
        [`callback on another instance → wait resolved, p50 / p99`, ...runs.map(lag)],
        ['callbacks delivered to another instance than the waiter', ...runs.map((o) => String(o.crossLags.length))],
        ['waits resolved', ...runs.map((o) => `${o.resolved}/${WAITS}${o.rejected ? ` (${o.rejected} rejected)` : ''}`)],
        ['time until all resolved', ...runs.map((o) => `${o.seconds.toFixed(1)} s`)],
        ['Redis round trips per wait (a script is one)', ...runs.map((o) => (o.redisCommands === undefined ? '—' : (o.roundTrips / WAITS).toFixed(1)))],
        ['Redis commands executed per wait (inside scripts too)', ...runs.map((o) => (o.redisCommands === undefined ? '—' : (o.redisCommands / WAITS).toFixed(1)))],
      ],
      notes: [
        'Target: p99 of the cross-instance lag at most 100 ms; the fleet never above its cap.',
        'Without coordination a callback helps only the instance it lands on (1 in 4); the other waits learn the end from their next query, and each client spends its own 20 queries per second.',
        "A handler's verification (verify: true, the default) is one task query per delivery, outside the poll budget: the service paces it, and holding it back would hold back every wait it ends.",
        'Redis counts include the heartbeats (one SET per instance every lease time / 3, however many leases it holds) and the journal (written at submission, cleared at the end).',
      ],
    };
  } finally {
    await redis.stop();
  }
};
