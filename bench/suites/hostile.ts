// The transport's promises on a hostile network (issue: transport you can trust), measured on
// the built package: (1) how soon an abort ends a call whose response has started and stalled,
// after a full GC, against raw fetch doing the same; (2) peak memory while a task query streams
// a gigabyte, against raw fetch reading it whole.
import { fork, type ChildProcess } from 'node:child_process';
import type { BenchTable } from '../run.ts';
import { median, percentile } from '../lib/stats.ts';

const TRIALS = 100;
/** The anchors (ky, fetch) run fewer trials: a trial that never ends costs the full 5 s. */
const ANCHOR_TRIALS = 20;
const RSS_RUNS = 3;

function message<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('error', reject);
    child.once('exit', (code) => code && reject(new Error(`child exited with ${code}`)));
  });
}

const ms = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(2));

async function abortAfterGc(): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  for (const scenario of ['query', 'download'] as const) {
    for (const variant of ['omnimedia', 'ky', 'fetch'] as const) {
      const trials = variant === 'omnimedia' ? TRIALS : ANCHOR_TRIALS;
      const child = fork(new URL('../helpers/abort-after-gc-child.ts', import.meta.url), [scenario, variant, String(trials)], {
        execArgv: [...process.execArgv, '--expose-gc'],
      });
      const { times, never, leftovers } = await message<{ times: number[]; never: number; leftovers: number }>(child);
      const what = scenario === 'query' ? 'stalled task query' : 'stalled download to a path';
      const who =
        variant === 'omnimedia'
          ? scenario === 'query'
            ? 'omnimedia tasks.retrieve(id, { signal })'
            : 'omnimedia files.download(url, { to, signal })'
          : variant === 'ky'
            ? 'ky(url, { signal }) (fetch gets its Request signal)'
            : 'fetch(url, { signal })';
      const max = times.length ? Math.max(...times) : Number.NaN;
      rows.push([what, who, ms(median(times)), ms(percentile(times, 99)), ms(max), `${never} / ${trials}`, variant === 'omnimedia' && scenario === 'download' ? leftovers : '']);
    }
  }
  return {
    title: `Abort after a full GC: ms from abort() to rejection, ${TRIALS} trials of the SDK, ${ANCHOR_TRIALS} of each anchor (Node ${process.versions.node}, loopback)`,
    columns: ['response', 'call', 'p50 ms', 'p99 ms', 'max ms', 'never rejected (5 s)', '.part left'],
    rows,
    notes: [
      'Each trial: the server sends headers and a first chunk, then stalls; once the body is being read, two global.gc(), then abort().',
      "Node's fetch follows a Request's signal only while that Request lives: ky (and the SDK before this change) hands fetch its Request's signal, so after a GC the abort never reaches the body. A signal given to fetch directly still works. The SDK now owns its controller, passes its signal to fetch directly and races it against every read, and removes the .part file.",
    ],
  };
}

async function endlessBodyMemory(): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  const variants = [
    ['retrieve', 'omnimedia tasks.retrieve(id)', 2 ** 30],
    ['wait', 'omnimedia tasks.wait(id, { timeout: 3000 })', 2 ** 30],
    ['fetch', 'raw fetch + response.text() (anchor, 256 MiB stream)', 2 ** 28],
  ] as const;
  for (const [variant, label, limit] of variants) {
    const growth: number[] = [];
    const sent: number[] = [];
    let outcome = '';
    for (let run = 0; run < RSS_RUNS; run++) {
      const server = fork(new URL('../servers/endless-server.ts', import.meta.url), [String(limit)]);
      const { port } = await message<{ port: number }>(server);
      const sentBytes: number[] = [];
      server.on('message', (m: { sent?: number }) => m.sent !== undefined && sentBytes.push(m.sent));
      const child = fork(new URL('../helpers/endless-rss-child.ts', import.meta.url), [variant, `http://127.0.0.1:${port}`]);
      const result = await message<{ growthMiB: number; ms: number; outcome: string }>(child);
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.send('stop');
      await new Promise((resolve) => (server.exitCode === null ? server.once('exit', resolve) : resolve(undefined)));
      growth.push(result.growthMiB);
      sent.push(sentBytes.reduce((a, b) => a + b, 0));
      outcome = result.outcome;
    }
    rows.push([label, median(growth).toFixed(1), (median(sent) / 2 ** 20).toFixed(1), outcome]);
  }
  return {
    title: `Peak RSS growth while a task query streams without end (median of ${RSS_RUNS}, server in another process)`,
    columns: ['reader', 'peak RSS growth, MiB', 'MiB the server sent (all queries)', 'outcome'],
    rows,
    notes: ['The SDK reads at most 1 MiB of an API answer, then cancels the body (the connection closes); a wait retries such an answer until its deadline.'],
  };
}

export default async (): Promise<BenchTable[]> => [await abortAfterGc(), await endlessBodyMemory()];
