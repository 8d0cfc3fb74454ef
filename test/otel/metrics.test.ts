// The metrics: http.client.request.duration per request attempt, omnimedia.wait.duration and
// omnimedia.wait.polls per finished wait (omnimedia.callbacks: test/otel/callbacks.test.ts),
// with the attributes the design lists; and the global providers, looked up when first used.
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { openTelemetry } from 'omnimedia/otel';
import { createMockService, type MswMockService } from 'omnimedia/testing/msw';
import { runInFakeTime } from '../helpers/clock.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { recorder, span, type Recorder } from '../helpers/otel.ts';

const server = useMsw();
let mock: MswMockService;
let rec: Recorder;
let client: OmniMedia;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  mock = createMockService({ baseURL: BASE_URL, durations: { pending: 1000, image: 9000 } });
  server.use(...mock.handlers);
  rec = recorder();
  client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', telemetry: rec.telemetry });
});
afterEach(() => {
  mock.close();
  vi.useRealTimers();
});

/** Let a promise settle while fake time runs (250 ms steps). */
const run = <T>(promise: Promise<T>, ms = 120_000): Promise<T> => runInFakeTime(promise, { ms, step: 250 });

describe('metrics', () => {
  it('http.client.request.duration: one measurement per attempt, in seconds, by method, status, server and error', async () => {
    mock.unavailableNext(1);
    await run(client.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait());
    const all = await rec.metrics();
    const histogram = all.find((m) => m.descriptor.name === 'http.client.request.duration') as HistogramMetricData;
    expect(histogram.descriptor.unit).toBe('s');
    const byKey = Object.fromEntries(
      histogram.dataPoints.map((p) => [`${p.attributes['http.request.method']} ${p.attributes['http.response.status_code']} ${p.attributes['error.type'] ?? '-'}`, p]),
    );
    expect(Object.keys(byKey).sort()).toEqual(['GET 200 -', 'POST 200 -', 'POST 503 503']);
    expect(byKey['POST 503 503']!.attributes).toEqual({
      'http.request.method': 'POST',
      'http.response.status_code': 503,
      'error.type': '503',
      'server.address': 'api.omnimedia.test',
      'server.port': 443,
    });
    const gets = byKey['GET 200 -']!;
    expect(gets.value.count).toBe(span(rec.spans(), 'omnimedia.tasks.wait').attributes['omnimedia.poll.count']);
    // Seconds, not ms: MSW answers in well under a second.
    expect(gets.value.max).toBeLessThan(1);
    expect(histogram.dataPoints.every((p) => p.value.sum! >= 0)).toBe(true);
  });

  it('omnimedia.wait.duration (seconds of the wait) and omnimedia.wait.polls (its queries), by status and operation', async () => {
    const submitted = client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    await run(submitted);
    const started = Date.now();
    await run(submitted.wait());
    const elapsed = (Date.now() - started) / 1000;
    const polls = span(rec.spans(), 'omnimedia.tasks.wait').attributes['omnimedia.poll.count'] as number;
    expect(polls).toBeGreaterThanOrEqual(2);

    const [duration] = await rec.points('omnimedia.wait.duration');
    const attributes = { 'omnimedia.operation': 'wait', 'omnimedia.task.status': 'completed', 'omnimedia.task.operation': 'image_generation' };
    expect(duration!.attributes).toEqual(attributes);
    const value = duration!.value as { count: number; sum: number };
    expect(value.count).toBe(1);
    // The fake clock moved in 250 ms steps; the wait's duration is that time, in seconds.
    expect(value.sum).toBeGreaterThan(elapsed - 0.5);
    expect(value.sum).toBeLessThanOrEqual(elapsed);
    const [queries] = await rec.points('omnimedia.wait.polls');
    expect(queries!.attributes).toEqual(attributes);
    expect(queries!.value).toMatchObject({ count: 1, sum: polls });
  });

  it('a wait that fails or times out is measured with its error.type', async () => {
    mock.failNextTask('provider_error');
    await run(client.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait()).catch(() => {});
    await run(client.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait({ timeout: 4_000 })).catch(() => {});
    const points = await rec.points('omnimedia.wait.duration');
    expect(points.map((p) => p.attributes).sort((a, b) => String(a['error.type']).localeCompare(String(b['error.type'])))).toEqual([
      { 'omnimedia.operation': 'wait', 'omnimedia.task.status': 'failed', 'omnimedia.task.operation': 'image_generation', 'error.type': 'TaskFailedError' },
      { 'omnimedia.operation': 'wait', 'omnimedia.task.status': 'processing', 'omnimedia.task.operation': 'image_generation', 'error.type': 'WaitTimeoutError' },
    ].sort((a, b) => String(a['error.type']).localeCompare(String(b['error.type']))));
  });
});

describe('the global providers', () => {
  afterEach(() => {
    trace.disable();
    metrics.disable();
  });

  it('openTelemetry() with no providers uses the registered ones, the meter looked up at the first measurement', async () => {
    const telemetry = openTelemetry(); // before the app registers anything
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
    const reader = new (class extends MetricReader {
      protected override async onForceFlush(): Promise<void> {}
      protected override async onShutdown(): Promise<void> {}
    })();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    const global = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', telemetry });
    await run(global.images.generate({ model: 'omni-image', prompt: 'a fox' }));
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['POST /v1/images/generations', 'omnimedia.images.generate']);
    const { resourceMetrics } = await reader.collect();
    const scope = resourceMetrics.scopeMetrics[0]!;
    expect(scope.scope).toMatchObject({ name: 'omnimedia', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(scope.metrics.map((m) => m.descriptor.name)).toEqual(['http.client.request.duration']);
  });

  it('with no SDK registered at all, everything runs and nothing is recorded', async () => {
    const quiet = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', telemetry: openTelemetry() });
    const task = await run(quiet.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait());
    expect(task.status).toBe('completed');
  });
});
