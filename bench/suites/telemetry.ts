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

const WARMUP_CALLS = 500;
const ROUNDS = 40;
const CALLS_PER_ROUND = 60;
const TASK_ID = 'task_bench_1';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

async function perCallMicros(call: () => Promise<unknown>, calls: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  return ((performance.now() - started) * 1000) / calls;
}

/** Interleaved rounds of `cases`; µs medians, and the median per-round ratio of each case to `baseline`. */
async function measure(cases: Record<string, () => Promise<unknown>>, baseline: string): Promise<{ micros: Record<string, number>; ratios: Record<string, number[]> }> {
  const names = Object.keys(cases);
  for (const name of names) await perCallMicros(cases[name]!, WARMUP_CALLS);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length]!;
      samples[name]!.push(await perCallMicros(cases[name]!, CALLS_PER_ROUND));
    }
  }
  const ratios = Object.fromEntries(names.map((n) => [n, samples[n]!.map((s, i) => s / samples[baseline]![i]!)]));
  return { micros: Object.fromEntries(names.map((n) => [n, median(samples[n]!)])), ratios };
}

/** Records every span and drops it: the SDK's whole cost, no exporter's I/O. */
const dropping: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
class IdleReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export default async function telemetry(): Promise<BenchTable> {
  const child = fork(new URL('../servers/api-server.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    const baseURL = `http://127.0.0.1:${port}`;
    const plain = new OmniMedia({ baseURL, logLevel: 'off' });

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

    const row = (label: string, result: typeof off, name: string, target: number) => {
      const ratios = result.ratios[name]!;
      const ratio = median(ratios);
      return [
        label,
        result.micros.plain!.toFixed(1),
        result.micros[name]!.toFixed(1),
        `${ratio.toFixed(2)}x`,
        `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x`,
        `${ratio <= target ? 'met' : 'OVER'} (≤ ${target}x)`,
      ];
    };
    return {
      title: 'Telemetry: a task query (tasks.retrieve) with telemetry against the same query without, same run, local server in another process',
      columns: ['case', 'without telemetry µs', 'with telemetry µs', 'ratio (median)', 'ratio range', 'target'],
      rows: [
        row('openTelemetry(), no SDK registered', off, 'noop', 1.1),
        row('openTelemetry(), a recording SDK (every span and metric, ALS context)', on, 'recording', 1.5),
      ],
      notes: [
        `Node ${process.version}; ${ROUNDS} interleaved rounds of ${CALLS_PER_ROUND} sequential queries per case after ${WARMUP_CALLS} warm-up calls; µs are medians of per-round means, the ratio is the median of per-round ratios. Recording: a batch span processor into an exporter that drops, a metric reader; ${count.toLocaleString('en-US')} request durations recorded.`,
      ],
    };
  } finally {
    child.disconnect();
    if (child.exitCode === null) await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 2_000).unref())]);
    if (child.exitCode === null) child.kill();
  }
}
