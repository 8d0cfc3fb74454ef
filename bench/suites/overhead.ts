// What the SDK costs on top of the network: median µs per call of `client.images.generate`
// and `client.tasks.retrieve` (validation, the exchange, retry policy, response parsing) against raw
// `fetch` + `JSON.parse` doing the same request, to a local server in another process.
// Cases run in interleaved rounds so that machine noise hits them alike; the ratio is taken
// per round and its median reported. Each call also runs 16 in flight (a page's or a server's
// burst: the client's shared state under concurrency). Target on Node 24 (issue 40): <= 1.10x
// raw fetch, sequential and 16 in flight, for a submission and a task query.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import ky from 'ky';
import { OmniMedia } from 'omnimedia';
import type { BenchTable } from '../run.ts';
import { median, perCallMicros } from '../lib/stats.ts';

const WARMUP_CALLS = 500;
const ROUNDS = 40;
const CALLS_PER_ROUND = 60;
const API_KEY = 'sk-bench-0000';
const PARAMS = { model: 'omni-image', prompt: 'a lighthouse at dawn, oil painting', size: '1536x1024', n: 1 } as const;
const TASK_ID = 'task_bench_1';
/** Calls in flight at once in the concurrent cases. */
const IN_FLIGHT = 16;
const TARGET = 1.1;

/** `call` with a signal that aborts it at a deadline (the SDK's default timeout), the timer cleared after. */
async function withDeadline<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 60_000);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** `call` run `IN_FLIGHT` times at once: one batch per timed call (µs are per batch, so ratios hold). */
const inFlight = (call: () => Promise<unknown>) => () => Promise.all(Array.from({ length: IN_FLIGHT }, call));

export default async function overhead(): Promise<BenchTable> {
  const child = fork(new URL('../servers/api-server.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    const base = `http://127.0.0.1:${port}`;
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: base, logLevel: 'off' });
    const kyAlone = ky.create({ prefix: `${base}/`, retry: 0, throwHttpErrors: false, timeout: 60_000 });

    const cases = {
      'sdk generate': () => client.images.generate(PARAMS),
      'raw generate': async () => {
        const response = await fetch(`${base}/v1/images/generations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(PARAMS),
        });
        return JSON.parse(await response.text()) as unknown;
      },
      // ky alone as the SDK's floor: what the issue measured at 1.59x raw fetch.
      'ky generate': async () => {
        const response = await kyAlone('v1/images/generations', { method: 'POST', json: PARAMS, headers: { authorization: `Bearer ${API_KEY}` } });
        return JSON.parse(await response.text()) as unknown;
      },
      // The platform's floor for a client that can cancel a call: raw fetch with what the SDK
      // must pay for its promises (an AbortSignal that closes the socket on a deadline or an
      // abort, the deadline's timer) and the same headers (the key on a submission).
      'floor generate': () =>
        withDeadline(async (signal) => {
          const response = await fetch(`${base}/v1/images/generations`, {
            method: 'POST',
            headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify(PARAMS),
            signal,
          });
          return JSON.parse(await response.text()) as unknown;
        }),
      'sdk retrieve': () => client.tasks.retrieve(TASK_ID),
      'ky retrieve': async () => JSON.parse(await (await kyAlone(`v1/tasks/${encodeURIComponent(TASK_ID)}`)).text()) as unknown,
      'raw retrieve': async () => {
        const response = await fetch(`${base}/v1/tasks/${encodeURIComponent(TASK_ID)}`);
        return JSON.parse(await response.text()) as unknown;
      },
      'floor retrieve': () =>
        withDeadline(async (signal) => {
          const response = await fetch(`${base}/v1/tasks/${encodeURIComponent(TASK_ID)}`, { signal });
          return JSON.parse(await response.text()) as unknown;
        }),
    };
    const concurrent = {
      'sdk generate x16': inFlight(cases['sdk generate']),
      'raw generate x16': inFlight(cases['raw generate']),
      'sdk retrieve x16': inFlight(cases['sdk retrieve']),
      'raw retrieve x16': inFlight(cases['raw retrieve']),
    };
    const all = { ...cases, ...concurrent };
    type Case = keyof typeof all;
    const names = Object.keys(all) as Case[];

    // Check each case does what it says before timing it.
    const submission = await client.images.generate(PARAMS);
    const task = await client.tasks.retrieve(TASK_ID);
    if (submission.task_id !== TASK_ID || task.status !== 'completed') throw new Error('overhead: unexpected answers from the bench server');

    for (const name of names) await perCallMicros(all[name], name.endsWith('x16') ? WARMUP_CALLS / IN_FLIGHT : WARMUP_CALLS);

    const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Case, number[]>;
    const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Case, number[]>;
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order so no case always runs first (or right after the same neighbour).
      for (let i = 0; i < names.length; i++) {
        const name = names[(round + i) % names.length] as Case;
        const measured = await perCallMicros(all[name], name.endsWith('x16') ? Math.ceil(CALLS_PER_ROUND / 4) : CALLS_PER_ROUND);
        samples[name].push(measured.wall);
        cpu[name].push(measured.cpu);
      }
    }

    const ratiosOf = (of: Record<Case, number[]>, sdk: Case, raw: Case) => of[sdk].map((s, i) => s / (of[raw][i] ?? Number.NaN));
    const row = (label: string, sdk: Case, raw: Case) => {
      const ratios = ratiosOf(samples, sdk, raw);
      return [
        label,
        median(samples[sdk]).toFixed(1),
        median(samples[raw]).toFixed(1),
        `${median(ratios).toFixed(2)}x${label.startsWith('reference') ? '' : median(ratios) <= TARGET ? ' met' : ' over'}`,
        `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x`,
        `${median(cpu[sdk]).toFixed(1)} / ${median(cpu[raw]).toFixed(1)} = ${median(ratiosOf(cpu, sdk, raw)).toFixed(2)}x`,
      ];
    };
    return {
      title: 'Overhead per call against raw fetch + JSON.parse (local server in another process)',
      columns: ['call', 'omnimedia µs', 'raw fetch µs', 'ratio (median)', 'ratio range', 'client CPU µs: omnimedia / raw'],
      rows: [
        row('images.generate (submission)', 'sdk generate', 'raw generate'),
        row('tasks.retrieve', 'sdk retrieve', 'raw retrieve'),
        row(`images.generate, ${IN_FLIGHT} in flight`, 'sdk generate x16', 'raw generate x16'),
        row(`tasks.retrieve, ${IN_FLIGHT} in flight`, 'sdk retrieve x16', 'raw retrieve x16'),
        row('reference: raw fetch + signal and deadline, same POST', 'floor generate', 'raw generate'),
        row('reference: raw fetch + signal and deadline, same GET', 'floor retrieve', 'raw retrieve'),
        row('reference: omnimedia against that floor, POST', 'sdk generate', 'floor generate'),
        row('reference: omnimedia against that floor, GET', 'sdk retrieve', 'floor retrieve'),
        row('reference: ky alone, same POST', 'ky generate', 'raw generate'),
        row('reference: ky alone, same GET', 'ky retrieve', 'raw retrieve'),
      ],
      notes: [
        `Node ${process.version}; ${ROUNDS} interleaved rounds of ${CALLS_PER_ROUND} sequential calls per case after ${WARMUP_CALLS} warm-up calls; µs are medians of the per-round means, the ratio is the median of per-round ratios (the range shows the noise). The ${IN_FLIGHT}-in-flight rows time ${Math.ceil(CALLS_PER_ROUND / 4)} batches of ${IN_FLIGHT} calls at once per round (µs per batch). CPU µs: this process's user+system time per call. "Floor": raw fetch with an AbortSignal, a deadline's timer and the SDK's headers, what any client that can cancel a call and sends a key pays (the rows against it show the SDK's own share; in those rows the "raw fetch µs" column is the floor's). Target: <= ${TARGET.toFixed(2)}x in every row but the references.`,
      ],
    };
  } finally {
    child.disconnect();
    if (child.exitCode === null) await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 2_000).unref())]);
    if (child.exitCode === null) child.kill();
  }
}
