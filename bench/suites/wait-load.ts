// 1,000 concurrent waits on one client against a local task service in another process:
// the request rate must stay under the client's cap, the heap must not balloon, and every
// wait must resolve. Tasks finish at random times within 20 s of their submission.
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

    // Submit first (1,000 POSTs at once are not what this measures), then wait for all.
    const submitted = Array.from({ length: WAITS }, (_, i) => client.images.generate({ model: 'omni-image', prompt: `task ${i}` }));
    await Promise.all(submitted);

    gc();
    const heapBefore = heapMiB();
    let heapPeak = heapBefore;
    let timersPeak = 0;
    const sampler = setInterval(() => {
      heapPeak = Math.max(heapPeak, heapMiB());
      timersPeak = Math.max(timersPeak, activeTimers());
    }, 100);

    const started = Date.now();
    const lags: number[] = [];
    let failed = 0;
    const waits = submitted.map((submission) =>
      submission
        .wait({ timeout: 10 * 60_000 })
        .then((task) => lags.push(Date.now() - Number((task as { done_at_ms?: number }).done_at_ms)))
        .catch(() => failed++),
    );
    // Live heap (after GC) while the waits are pending: what 1,000 waits hold.
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
          `live heap growth with ${pendingThen} waits pending (after GC)`,
          `+${(heapPending - heapBefore).toFixed(2)} MiB (${(((heapPending - heapBefore) * 1024) / Math.max(1, pendingThen)).toFixed(2)} KiB per wait)`,
        ],
        ['heap used, peak while waiting (garbage included)', `${heapBefore.toFixed(1)} → ${heapPeak.toFixed(1)} MiB`],
        ['heap retained after all resolved (after GC)', `${(heapAfter - heapBefore).toFixed(1)} MiB`],
        ['peak active timers in the client process', timersPeak],
      ],
      notes: [
        `The cap makes ${WAITS} waits share ${cap} queries per second, so the lag is set by the cap, not by the cadence; raise maxPollsPerSecond for more.`,
        'The 1,000 tasks are submitted first; the heap and timer figures cover the waiting phase only.',
        'Active timers: the scheduler holds one for all waits; the others are the per-request timeouts of queries in flight, and the sampler.',
      ],
    };
  } finally {
    child.disconnect();
    child.kill();
  }
};
