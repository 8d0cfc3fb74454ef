// 1,000 concurrent waits on one client against a local task service in another process:
// the request rate must stay under the client's cap, the heap must not balloon, and every
// wait must resolve. Tasks finish at random times within 20 s of their creation.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { OmniMedia } from 'omnimedia';
import type { BenchTable } from '../run.ts';

const WAITS = 1_000;
const MAX_DURATION_MS = 20_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMiB = () => process.memoryUsage().heapUsed / 2 ** 20;
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;
const activeTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

export default async (): Promise<BenchTable> => {
  const child = fork(new URL('../servers/task-server.ts', import.meta.url), [], {
    env: { ...process.env, DURATION_MS: String(MAX_DURATION_MS) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    const baseURL = `http://127.0.0.1:${port}`;
    const client = new OmniMedia({ apiKey: 'sk-bench', baseURL, logLevel: 'off' });
    const cap = client.pollScheduler.maxPerSecond;

    // The tasks are created on the server in one call, so that the client's heap holds the
    // waits and nothing else (1,000 submissions would leave 1,000 idle sockets behind).
    const { ids } = (await (await fetch(`${baseURL}/__setup?tasks=${WAITS}`, { method: 'POST' })).json()) as { ids: string[] };

    gc();
    const heapBefore = heapMiB();
    let timersPeak = 0;
    const sampler = setInterval(() => {
      timersPeak = Math.max(timersPeak, activeTimers());
    }, 100);

    const started = Date.now();
    const lags: number[] = [];
    let failed = 0;
    const waits = ids.map((id) =>
      client.tasks
        .wait(id, { timeout: 10 * 60_000 })
        .then((task) => lags.push(Date.now() - Number((task as { done_at_ms?: number }).done_at_ms)))
        .catch(() => failed++),
    );
    // Live heap (after GC) while the waits are pending: what they hold.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    gc();
    const heapPending = heapMiB();
    const pendingThen = WAITS - lags.length - failed;
    await Promise.all(waits);
    const elapsed = (Date.now() - started) / 1000;
    clearInterval(sampler);
    gc();
    const heapAfter = heapMiB();
    const stats = (await (await fetch(`${baseURL}/__stats`)).json()) as {
      queries: number;
      peakSliding: number;
      peakPerSecond: number;
    };
    const meanLag = lags.reduce((a, b) => a + b, 0) / Math.max(1, lags.length) / 1000;
    return {
      title: `wait load: ${WAITS} concurrent waits, tasks ending within ${MAX_DURATION_MS / 1000} s, local server in another process`,
      columns: ['measure', 'value'],
      rows: [
        ['rate cap (maxPollsPerSecond, default)', `${cap}/s`],
        ['peak task queries in any 1 s window (server-side)', stats.peakSliding],
        ['peak task queries in one calendar second (server-side)', stats.peakPerSecond],
        ['cap honoured', stats.peakSliding <= cap ? 'yes' : 'NO'],
        ['task queries in all', `${stats.queries} (${(stats.queries / WAITS).toFixed(2)} per wait)`],
        ['waits resolved', `${lags.length}/${WAITS}${failed ? ` (${failed} failed)` : ''}`],
        ['time until all resolved', `${elapsed.toFixed(1)} s`],
        ['mean detection lag', `${meanLag.toFixed(1)} s`],
        [
          `heap growth with ${pendingThen} waits pending (live, after GC)`,
          `${signed(heapPending - heapBefore)} MiB (${(((heapPending - heapBefore) * 1024) / Math.max(1, pendingThen)).toFixed(2)} KiB per wait)`,
        ],
        ['heap growth after all resolved (live, after GC)', `${signed(heapAfter - heapBefore)} MiB`],
        ['left behind: scheduler entries / task-event listeners', `${client.pollScheduler.pending} / ${client.taskEvents.size}`],
        ['peak active timers in the client process', timersPeak],
      ],
      notes: [
        `The cap makes ${WAITS} waits share ${cap} queries per second, so the lag is set by the cap, not by the cadence; raise maxPollsPerSecond for more.`,
        'The tasks are created on the server in one call and waited for by id (tasks.wait), so the heap figures are those of the waits.',
        'Active timers: the scheduler holds one for all waits; the others are the per-request timeouts of queries in flight, and the sampler.',
      ],
    };
  } finally {
    child.disconnect();
    child.kill();
  }
};
