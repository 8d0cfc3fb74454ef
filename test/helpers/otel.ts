// OpenTelemetry's own SDK recording what the client reports: an in-memory span exporter, a
// metric reader, and the context managers (Node's AsyncLocalStorage one; the browser's default,
// which follows synchronous code only).
import { context, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader, type DataPoint, type MetricData } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, StackContextManager, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { openTelemetry, type OpenTelemetryOptions } from 'omnimedia/otel';

/** A reader the test collects from when it wants (no timer). */
class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Recorder {
  telemetry: ReturnType<typeof openTelemetry>;
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  /** The app's own tracer, for the caller's spans. */
  tracer: ReturnType<TracerProvider['getTracer']>;
  spans(): ReadableSpan[];
  /** Every data point of the metric `name`. */
  points(name: string): Promise<DataPoint<unknown>[]>;
  metrics(): Promise<MetricData[]>;
  reset(): void;
}

/** An `openTelemetry()` recording into memory through explicit providers. */
export function recorder(options: Omit<OpenTelemetryOptions, 'tracerProvider' | 'meterProvider'> = {}): Recorder {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const metricsOf = async () => (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
  return {
    telemetry: openTelemetry({ ...options, tracerProvider, meterProvider }),
    tracerProvider,
    meterProvider,
    tracer: tracerProvider.getTracer('app'),
    spans: () => exporter.getFinishedSpans(),
    metrics: metricsOf,
    points: async (name) => (await metricsOf()).filter((m) => m.descriptor.name === name).flatMap((m) => m.dataPoints as DataPoint<unknown>[]),
    reset: () => exporter.reset(),
  };
}

/** Register a global context manager for the tests of a file (`async`: Node's; `stack`: a browser's default). */
export function useContextManager(kind: 'async' | 'stack'): () => void {
  const manager: ContextManager = kind === 'async' ? new AsyncLocalStorageContextManager() : new StackContextManager();
  context.setGlobalContextManager(manager.enable());
  return () => {
    manager.disable();
    context.disable();
  };
}

/** The span named `name` (the only one, or the `index`-th). */
export function span(spans: ReadableSpan[], name: string, index = 0): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  if (!found[index]) throw new Error(`no span "${name}" #${index}; spans: ${spans.map((s) => s.name).join(', ')}`);
  return found[index];
}

/** The spans whose parent is `parent`. */
export function childrenOf(spans: ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);
}

/** `true` when `child` is in `parent`'s trace and hangs directly below it. */
export function isChildOf(child: ReadableSpan, parent: ReadableSpan): boolean {
  return child.parentSpanContext?.spanId === parent.spanContext().spanId && child.spanContext().traceId === parent.spanContext().traceId;
}

/** The spans as an indented tree of names, for failure messages and the README. */
export function tree(spans: ReadableSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const roots = spans.filter((s) => !s.parentSpanContext || !ids.has(s.parentSpanContext.spanId));
  const lines: string[] = [];
  const visit = (s: ReadableSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${s.name}`);
    for (const child of childrenOf(spans, s).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return lines.join('\n');
}
