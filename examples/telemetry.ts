// Trace one image generation with OpenTelemetry: the client's spans as the console exporter
// prints them, then the same trace drawn as a tree.
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... node examples/telemetry.ts
//
// In an app, the SDK set-up below is the one you already have (e.g. @opentelemetry/sdk-node
// with an OTLP exporter); the client only needs `telemetry: openTelemetry()`.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ConsoleSpanExporter, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { OmniMedia } from 'omnimedia';
import { openTelemetry } from 'omnimedia/otel';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const kept = new InMemorySpanExporter(); // for the tree at the end
const provider = new TracerProvider({
  spanProcessors: [new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }), new SimpleSpanProcessor({ exporter: kept })],
});
trace.setGlobalTracerProvider(provider);

const client = new OmniMedia({ telemetry: openTelemetry() }); // OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL
const task = await trace.getTracer('example').startActiveSpan('make-cover-image', async (span) => {
  try {
    return await client.images.generate({ model: process.env.OMNIMEDIA_IMAGE_MODEL ?? 'omni-image', prompt: 'a lighthouse at dawn' }).wait();
  } finally {
    span.end();
  }
});
await provider.forceFlush();
console.log(`\n${task.task_id} ${task.status}: ${task.data?.[0]?.url}\n`);

// The same spans as a tree, with the attributes worth a glance.
const spans = kept.getFinishedSpans();
const ms = (s: ReadableSpan) => Math.round(s.duration[0] * 1000 + s.duration[1] / 1e6);
const note = (s: ReadableSpan) =>
  ['http.response.status_code', 'omnimedia.task.status', 'omnimedia.model', 'omnimedia.poll.count', 'omnimedia.wait.ended_by', 'http.request.resend_count', 'error.type']
    .filter((key) => s.attributes[key] !== undefined)
    .map((key) => `${key.replace(/^(omnimedia|http\.response|http\.request)\./, '')}=${String(s.attributes[key])}`)
    .join(' ');
const lines: string[] = [];
const draw = (s: ReadableSpan, prefix: string, last: boolean, root: boolean) => {
  const label = `${root ? '' : `${prefix}${last ? '└─ ' : '├─ '}`}${s.name}`;
  lines.push(`${label.padEnd(48)} ${String(ms(s)).padStart(6)} ms  ${note(s)}`.trimEnd());
  const children = spans.filter((c) => c.parentSpanContext?.spanId === s.spanContext().spanId);
  children.forEach((c, i) => draw(c, root ? '' : `${prefix}${last ? '   ' : '│  '}`, i === children.length - 1, false));
};
for (const root of spans.filter((s) => !s.parentSpanContext)) draw(root, '', true, true);
console.log(`Trace ${spans[0]?.spanContext().traceId}:\n${lines.join('\n')}`);
await provider.shutdown();
