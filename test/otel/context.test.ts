// Where the SDK's spans hang: under the caller's active span, including the task queries a wait
// sends later from the client's one scheduler timer (armed by whichever wait came first) and
// from a fleet's scheduler (test/integration/otel-fleet.test.ts). Run under Node's context manager
// (AsyncLocalStorage) and under a browser's default one, which follows synchronous code only:
// the queries find their wait by the span the core hands them, not by the ambient context.
import { SpanKind, trace } from '@opentelemetry/api';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { createMockService, type MswMockService } from 'omnimedia/testing/msw';
import { runInFakeTime } from '../helpers/clock.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { childrenOf, isChildOf, recorder, span, tree, useContextManager, type Recorder } from '../helpers/otel.ts';

const server = useMsw();

/** Let a promise settle while fake time runs (250 ms steps). */
const run = <T>(promise: Promise<T>, ms = 120_000): Promise<T> => runInFakeTime(promise, { ms, step: 250, toNextTimer: true });

describe.each(['async', 'stack'] as const)('with the %s context manager', (kind) => {
  let mock: MswMockService;
  let rec: Recorder;
  let client: OmniMedia;
  let disableContext: () => void;

  beforeAll(() => (disableContext = useContextManager(kind)));
  afterAll(() => disableContext());
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    mock = createMockService({ baseURL: BASE_URL, durations: { pending: 1000, image: 6000 } });
    server.use(...mock.handlers);
    rec = recorder();
    client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', telemetry: rec.telemetry });
  });
  afterEach(() => {
    mock.close();
    vi.useRealTimers();
  });

  it('two waits under two caller spans: each wait and each of its queries, fired from the one scheduler timer, hang under their own', async () => {
    const a = await run(client.images.generate({ model: 'omni-image', prompt: 'a' }));
    const b = await run(client.images.generate({ model: 'omni-image', prompt: 'b' }));
    rec.reset();
    // Both waits start in the same tick, under different spans; the scheduler's one timer
    // (armed by the first) fires the queries of both.
    const waitB = rec.tracer.startActiveSpan('app.b', (s) => client.tasks.wait(b.task_id).finally(() => s.end()));
    const waitA = rec.tracer.startActiveSpan('app.a', (s) => client.tasks.wait(a.task_id).finally(() => s.end()));
    await run(Promise.all([waitA, waitB]));
    expect(client.pollScheduler.armed).toBe(false);

    const spans = rec.spans();
    for (const [parentName, taskId] of [['app.a', a.task_id], ['app.b', b.task_id]] as const) {
      const parent = span(spans, parentName);
      const [wait] = childrenOf(spans, parent);
      expect(wait, tree(spans)).toMatchObject({ name: 'omnimedia.tasks.wait' });
      expect(wait!.attributes['omnimedia.task.id']).toBe(taskId);
      const queries = childrenOf(spans, wait!);
      expect(queries.length).toBeGreaterThanOrEqual(2);
      expect(queries.every((q) => q.kind === SpanKind.CLIENT && q.attributes['url.full'] === `${BASE_URL}/v1/tasks/${taskId}`)).toBe(true);
      expect(queries.length).toBe(wait!.attributes['omnimedia.poll.count']);
    }
    // Nothing else floats: every span but the callers' has a parent in this trace set.
    const ids = new Set(spans.map((s) => s.spanContext().spanId));
    expect(spans.filter((s) => !s.name.startsWith('app.') && !ids.has(s.parentSpanContext?.spanId ?? '')).map((s) => s.name)).toEqual([]);
  });

  it('a submission started under the caller\'s span is its child, and its request attempts are the submission\'s', async () => {
    mock.rateLimitNext(1, { retryAfter: 1 });
    await rec.tracer.startActiveSpan('app.request', async (parent) => {
      const submitted = client.images.generate({ model: 'omni-image', prompt: 'a fox' });
      parent.end();
      await run(submitted);
    });
    const spans = rec.spans();
    const submit = span(spans, 'omnimedia.images.generate');
    expect(isChildOf(submit, span(spans, 'app.request'))).toBe(true);
    expect(childrenOf(spans, submit).map((s) => s.name)).toEqual(['POST /v1/images/generations', 'POST /v1/images/generations']);
  });
});

describe('with a callback ending the wait', () => {
  let mock: MswMockService;
  let disableContext: () => void;
  beforeAll(() => (disableContext = useContextManager('async')));
  afterAll(() => disableContext());
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    mock = createMockService({ baseURL: BASE_URL, durations: { pending: 1000, image: 20_000 }, callbackRetryDelays: [] });
    server.use(...mock.handlers);
  });
  afterEach(() => {
    mock.close();
    vi.useRealTimers();
  });

  it('the handler’s span is a child of the delivery’s server span, and onTask runs inside it', async () => {
    const rec = recorder();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', telemetry: rec.telemetry });
    let active: string | undefined;
    const handle = client.callbacks.handler(() => {
      active = (trace.getActiveSpan() as unknown as { name?: string } | undefined)?.name;
    });
    server.use(http.post('https://app.test/hooks', async ({ request }) => rec.tracer.startActiveSpan('app.POST /hooks', async (s) => {
      const response = await handle(request);
      s.end();
      return response;
    })));
    await run(client.images.generate({ model: 'omni-image', prompt: 'a fox', callback_url: 'https://app.test/hooks' }).wait());
    await run(mock.callbacksSettled());
    expect(active).toBe('omnimedia.callbacks.handle');
    const spans = rec.spans();
    const handler = span(spans, 'omnimedia.callbacks.handle');
    expect(isChildOf(handler, span(spans, 'app.POST /hooks'))).toBe(true);
    expect(childrenOf(spans, handler).map((s) => s.name)).toEqual(['GET /v1/tasks/{task_id}']);
  });
});

describe('propagation and the HTTP spans switch', () => {
  let mock: MswMockService;
  let disableContext: () => void;
  const seen: { traceparent: string | null; active: string | undefined }[] = [];
  beforeAll(() => (disableContext = useContextManager('async')));
  afterAll(() => disableContext());
  beforeEach(async () => {
    const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
    const { propagation } = await import('@opentelemetry/api');
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    mock = createMockService({ baseURL: BASE_URL });
    server.use(...mock.handlers);
    seen.length = 0;
  });
  afterEach(async () => {
    (await import('@opentelemetry/api')).propagation.disable();
    mock.close();
  });

  /** A fetch as an app's fetch instrumentation sees it: the headers sent, the active span. */
  const watching: typeof fetch = (input, init) => {
    const active = trace.getActiveSpan() as unknown as { name?: string } | undefined;
    seen.push({ traceparent: new Headers(init?.headers).get('traceparent'), active: active?.name });
    return fetch(input, init);
  };

  it('no traceparent reaches the service by default', async () => {
    const rec = recorder();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', fetch: watching, telemetry: rec.telemetry });
    await rec.tracer.startActiveSpan('app', async (s) => {
      await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
      s.end();
    });
    expect(seen).toEqual([{ traceparent: null, active: 'POST /v1/images/generations' }]);
  });

  it('propagate: true sends the request span’s traceparent, and never changes the client’s own headers', async () => {
    const rec = recorder({ propagate: true });
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', fetch: watching, telemetry: rec.telemetry, defaultHeaders: { 'x-app': '1' } });
    await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    const posts = rec.spans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(seen.map((s) => s.traceparent)).toEqual(posts.map((p) => `00-${p.spanContext().traceId}-${p.spanContext().spanId}-01`));
    expect(new Set(seen.map((s) => s.traceparent)).size).toBe(2);
  });

  it('httpSpans: false: no CLIENT span and no request metric, but the request runs in the call’s context (an app’s fetch instrumentation hangs under it)', async () => {
    const rec = recorder({ httpSpans: false, propagate: true });
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', fetch: watching, telemetry: rec.telemetry });
    const { task_id } = await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    await client.tasks.retrieve(task_id);
    expect(rec.spans().map((s) => s.name)).toEqual(['omnimedia.images.generate', 'omnimedia.tasks.retrieve']);
    expect(seen.map((s) => s.active)).toEqual(['omnimedia.images.generate', 'omnimedia.tasks.retrieve']);
    // Propagated from the call span itself when there is no request span.
    expect(seen[0]?.traceparent).toBe(`00-${rec.spans()[0]!.spanContext().traceId}-${rec.spans()[0]!.spanContext().spanId}-01`);
    expect(await rec.points('http.client.request.duration')).toEqual([]);
  });
});
