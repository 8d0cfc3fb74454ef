// What telemetry costs a task query (`client.tasks.retrieve`: a call span, a request span,
// a request-duration measurement), against the same query without the telemetry option,
// measured in the same run against a local server in another process.
// - no SDK registered: `openTelemetry()` with nothing behind @opentelemetry/api (target <= 1.1x);
// - a recording SDK: explicit providers recording every span (a batch processor into an
//   exporter that drops) and every metric, under Node's AsyncLocalStorage context manager, as
//   an app runs it (target <= 1.5x).
// Cases run in interleaved rounds; the ratio is taken per round and its median reported.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { OmniMedia } from 'omnimedia';
import { openTelemetry } from 'omnimedia/otel';
import type { BenchTable } from '../run.ts';
import { median, perCallMicros } from '../lib/stats.ts';

const WARMUP_CALLS = 500;
const ROUNDS = 40;
const CALLS_PER_ROUND = 60;
const TASK_ID = 'task_bench_1';

interface Measured {
  wall: Record<string, number>;
  cpu: Record<string, number>;
  wallRatios: Record<string, number[]>;
  cpuRatios: Record<string, number[]>;
}

/** Interleaved rounds of `cases`; µs medians, and the per-round ratios of each case to `baseline`. */
async function measure(cases: Record<string, () => Promise<unknown>>, baseline: string): Promise<Measured> {
  const names = Object.keys(cases);
  for (const name of names) await perCallMicros(cases[name]!, WARMUP_CALLS);
  const wall: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length]!;
      const measured = await perCallMicros(cases[name]!, CALLS_PER_ROUND);
      wall[name]!.push(measured.wall);
      cpu[name]!.push(measured.cpu);
    }
  }
  const ratios = (of: Record<string, number[]>) => Object.fromEntries(names.map((n) => [n, of[n]!.map((s, i) => s / of[baseline]![i]!)]));
  const medians = (of: Record<string, number[]>) => Object.fromEntries(names.map((n) => [n, median(of[n]!)]));
  return { wall: medians(wall), cpu: medians(cpu), wallRatios: ratios(wall), cpuRatios: ratios(cpu) };
}

/** Records every span and drops it: the SDK's whole cost, no exporter's I/O. */
const dropping: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
class IdleReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** The SDK's own CPU per query, network left out: `fetch` answered in memory. */
async function inProcess(): Promise<(string | number)[][]> {
  const TASK = JSON.stringify({ task_id: TASK_ID, status: 'completed', model: 'omni-image', data: [{ url: 'https://files.example/out-1.png' }] });
  const fetch = async () => new Response(TASK, { headers: { 'content-type': 'application/json' } });
  const baseURL = 'https://api.example';
  const plain = new OmniMedia({ baseURL, fetch, logLevel: 'off' });
  const noop = new OmniMedia({ baseURL, fetch, logLevel: 'off', telemetry: openTelemetry() });
  const { cpu } = await measure({ plain: () => plain.tasks.retrieve(TASK_ID), noop: () => noop.tasks.retrieve(TASK_ID) }, 'plain');
  return [['in process (fetch answered in memory), no SDK registered', '', `${cpu.plain!.toFixed(1)} / ${cpu.noop!.toFixed(1)}: +${(cpu.noop! - cpu.plain!).toFixed(1)} µs per query`, '']];
}

export default async function telemetry(): Promise<BenchTable> {
  const child = fork(new URL('../servers/api-server.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    const baseURL = `http://127.0.0.1:${port}`;
    const plain = new OmniMedia({ baseURL, logLevel: 'off' });

    const absolute = await inProcess();
    // 1. Nothing registered behind @opentelemetry/api.
    const noop = new OmniMedia({ baseURL, logLevel: 'off', telemetry: openTelemetry() });
    const off = await measure({ plain: () => plain.tasks.retrieve(TASK_ID), noop: () => noop.tasks.retrieve(TASK_ID) }, 'plain');

    // 2. A recording SDK, as an app runs it.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropping, maxQueueSize: 100_000 })] });
    const reader = new IdleReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const recording = new OmniMedia({ baseURL, logLevel: 'off', telemetry: openTelemetry({ tracerProvider, meterProvider }) });
    const on = await measure({ plain: () => plain.tasks.retrieve(TASK_ID), recording: () => recording.tasks.retrieve(TASK_ID) }, 'plain');
    const { resourceMetrics } = await reader.collect();
    const measured = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'http.client.request.duration');
    const count = (measured?.dataPoints[0]?.value as { count?: number } | undefined)?.count ?? 0;
    if (count < ROUNDS * CALLS_PER_ROUND) throw new Error(`telemetry bench: the recording client measured ${count} requests`);
    await tracerProvider.shutdown();
    context.disable();

    const row = (label: string, result: Measured, name: string, target: number) => {
      const wallRatio = median(result.wallRatios[name]!);
      const cpuRatio = median(result.cpuRatios[name]!);
      return [
        label,
        `${result.wall.plain!.toFixed(1)} / ${result.wall[name]!.toFixed(1)} = ${wallRatio.toFixed(2)}x`,
        `${result.cpu.plain!.toFixed(1)} / ${result.cpu[name]!.toFixed(1)} = ${cpuRatio.toFixed(2)}x`,
        `${cpuRatio <= target ? 'met' : 'OVER'} (≤ ${target}x)`,
      ];
    };
    return {
      title: 'Telemetry: a task query (tasks.retrieve) with telemetry against the same query without, same run, local server in another process',
      columns: ['case', 'wall µs: without / with = ratio', 'client CPU µs: without / with = ratio', 'target (CPU ratio)'],
      rows: [
        row('openTelemetry(), no SDK registered', off, 'noop', 1.1),
        row('openTelemetry(), a recording SDK (every span and metric, ALS context)', on, 'recording', 1.5),
        ...absolute,
      ],
      notes: [
        `Node ${process.version}; ${ROUNDS} interleaved rounds of ${CALLS_PER_ROUND} sequential queries per case after ${WARMUP_CALLS} warm-up calls; µs are medians of per-round means, ratios the medians of per-round ratios; the target is judged on the client's CPU per query (this process's user+system time), which other processes on a shared machine disturb less than wall time. Recording: a batch span processor into an exporter that drops, a metric reader; ${count.toLocaleString('en-US')} request durations recorded.`,
      ],
    };
  } finally {
    child.disconnect();
    if (child.exitCode === null) await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 2_000).unref())]);
    if (child.exitCode === null) child.kill();
  }
}
