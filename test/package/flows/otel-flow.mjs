// omnimedia/otel from the installed tarball: a wait under a span of the app, recorded by
// OpenTelemetry's own SDK into memory. Shared by the Node/Deno/Bun flows and the browser page.
// Throws on any deviation; returns a one-line summary.
export async function runOtelFlow({ OmniMedia, openTelemetry, api, sdk, baseURL, runtime, TasksClient }) {
  const check = (condition, what) => {
    if (!condition) throw new Error(`${runtime} otel: ${what}`);
  };
  // The browser's default context manager (synchronous code only): the queries a wait fires later
  // find their wait by the span the client hands them, not by an async context.
  api.context.setGlobalContextManager(new sdk.StackContextManager().enable());
  const exporter = new sdk.InMemorySpanExporter();
  const tracerProvider = new sdk.TracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })] });
  const telemetry = openTelemetry({ tracerProvider });
  const submitted = await new OmniMedia({ baseURL, apiKey: 'sk-test-otel', telemetry, dangerouslyAllowBrowser: true }).images.generate({ model: 'omni-image', prompt: 'a lighthouse' });
  const follower = TasksClient ? new TasksClient({ baseURL, telemetry }) : new OmniMedia({ baseURL, telemetry }).tasks;
  const tracer = tracerProvider.getTracer('consumer');
  const done = await tracer.startActiveSpan('consumer.follow', async (span) => {
    try {
      return await follower.wait(submitted.task_id, { initialDelay: 0, interval: 50, maxInterval: 100, timeout: 30_000 });
    } finally {
      span.end();
    }
  });
  check(done.status === 'completed', `the wait ended ${done.status}`);
  const spans = exporter.getFinishedSpans();
  const named = (name) => spans.filter((s) => s.name === name);
  const parentOf = (s) => spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId);
  const [submit] = named('omnimedia.images.generate');
  check(submit?.attributes['gen_ai.operation.name'] === 'generate_image', 'the submission span has its GenAI attributes');
  check(named('POST /v1/images/generations').every((s) => parentOf(s) === submit), 'the POST is under the submission');
  const [wait] = named('omnimedia.tasks.wait');
  check(wait && parentOf(wait)?.name === 'consumer.follow', "the wait is under the app's span");
  const queries = named('GET /v1/tasks/{task_id}');
  check(queries.length > 0 && queries.every((q) => parentOf(q) === wait), 'every query is under the wait');
  check(wait.attributes['omnimedia.poll.count'] === queries.length, 'poll.count counts the queries');
  check(wait.attributes['omnimedia.wait.ended_by'] === 'poll', 'the wait says its own query saw the end');
  check(!JSON.stringify(spans.map((s) => s.attributes)).includes('sk-test-otel'), 'no key in the attributes');
  check(typeof api.trace.getTracer === 'function', '@opentelemetry/api loaded');
  return `ok ${runtime} otel: ${spans.length} spans, the wait's ${queries.length} queries under it`;
}
