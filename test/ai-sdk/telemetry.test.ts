// createOmniMedia({ telemetry: openTelemetry() }): what the provider's client does for the real
// `ai` package (submission, auto-uploads, wait, downloads) is recorded by OpenTelemetry's own SDK,
// every span in the trace of the app's span around the generation. The README's "With the AI
// SDK" promises this works.
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { experimental_generateVideo as generateVideo, generateImage } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { childrenOf, isChildOf, recorder, span, tree, useContextManager, type Recorder } from '../helpers/otel.ts';
import { fixture, photo } from '../testing/mock-helpers.ts';
import { run, useAiSdk } from './setup.ts';

const ctx = useAiSdk();
let rec: Recorder;
let disableContext: () => void;

beforeAll(() => (disableContext = useContextManager('async')));
afterAll(() => disableContext());
beforeEach(() => {
  rec = recorder();
});

/**
 * A provider reporting to the recorder. The mock draws each result image when it is first
 * asked for, which takes real milliseconds while `run` moves fake time on by minutes: with
 * the default 60 s a download's first attempt "times out" and is retried, so a longer one.
 */
const provider = () => ctx.provider({ telemetry: rec.telemetry, timeout: 3_600_000 });

/** Run `work` inside the app's own active span `name`; the spans recorded, and that span. */
async function underAppSpan(name: string, work: () => PromiseLike<unknown>): Promise<{ spans: ReadableSpan[]; app: ReadableSpan }> {
  await rec.tracer.startActiveSpan(name, async (parent) => {
    try {
      await run(work());
    } finally {
      parent.end();
    }
  });
  const spans = rec.spans();
  return { spans, app: span(spans, name) };
}

/** Every span recorded is in the trace of the app's span: none started a trace of its own. */
function expectOneTrace(spans: ReadableSpan[], app: ReadableSpan) {
  for (const s of spans) expect(s.spanContext().traceId, `${s.name} in another trace:\n${tree(spans)}`).toBe(app.spanContext().traceId);
}

describe('the provider with telemetry', () => {
  it('generateImage of an edit: the edit, its upload, the wait and each download under the caller’s span', async () => {
    const omni = provider();
    const { spans, app } = await underAppSpan('app.make-night', () =>
      generateImage({ model: omni.image('omni-image'), prompt: { text: 'make it night', images: [photo()] }, n: 2 }),
    );
    expectOneTrace(spans, app);
    const edit = span(spans, 'omnimedia.images.edit');
    const upload = span(spans, 'omnimedia.uploads.image');
    const wait = span(spans, 'omnimedia.tasks.wait');
    const download = span(spans, 'omnimedia.files.download');
    expect(isChildOf(edit, app), tree(spans)).toBe(true);
    expect(isChildOf(upload, edit), tree(spans)).toBe(true);
    expect(childrenOf(spans, upload).map((s) => s.name)).toEqual(['POST /v1/uploads/images']);
    expect(childrenOf(spans, edit).map((s) => s.name).sort()).toEqual(['POST /v1/images/edits', 'omnimedia.uploads.image']);
    expect(isChildOf(wait, app), tree(spans)).toBe(true);
    expect(wait.attributes).toMatchObject({ 'omnimedia.task.status': 'completed', 'omnimedia.wait.ended_by': 'poll' });
    expect(childrenOf(spans, wait).length).toBe(wait.attributes['omnimedia.poll.count']);
    // One download call for the task's outputs, a GET below it for each image.
    expect(isChildOf(download, app), tree(spans)).toBe(true);
    const gets = childrenOf(spans, download);
    expect(gets.map((s) => s.name)).toEqual(['GET', 'GET']);
    const taskId = String(edit.attributes['omnimedia.task.id']);
    expect(gets.map((s) => s.attributes['url.full']).sort()).toEqual([0, 1].map((i) => expect.stringContaining(`/files/results/${taskId}/${i}.png`)));
    expect(gets.map((s) => s.attributes['http.response.status_code'])).toEqual([200, 200]);
    expect(edit.attributes).toMatchObject({ 'omnimedia.operation': 'image_edit', 'gen_ai.request.model': 'omni-image', 'omnimedia.task.status': 'pending' });
  });

  it('experimental_generateVideo with a reference image: upload, submission, wait, download under the caller’s span', async () => {
    const omni = provider();
    const { spans, app } = await underAppSpan('app.animate', () =>
      generateVideo({ model: omni.video('omni_flash'), prompt: { image: fixture('tiny.jpg'), text: 'the cat jumps' }, duration: 4 }),
    );
    expectOneTrace(spans, app);
    const generate = span(spans, 'omnimedia.videos.generate');
    const upload = span(spans, 'omnimedia.uploads.image');
    const wait = span(spans, 'omnimedia.tasks.wait');
    const download = span(spans, 'omnimedia.files.download');
    for (const call of [generate, wait, download]) expect(isChildOf(call, app), tree(spans)).toBe(true);
    // The reference is the submission's auto-upload: a call of its own under the submission.
    expect(isChildOf(upload, generate), tree(spans)).toBe(true);
    expect(childrenOf(spans, upload).map((s) => s.name)).toEqual(['POST /v1/uploads/images']);
    expect(childrenOf(spans, generate).filter((s) => s.name.startsWith('POST')).map((s) => s.name)).toEqual(['POST /v1/video/generate']);
    expect(wait.attributes).toMatchObject({ 'omnimedia.task.status': 'completed' });
    expect(childrenOf(spans, wait).length).toBeGreaterThan(0);
    expect(childrenOf(spans, download).map((s) => s.name)).toEqual(['GET']);
  });

  it('the AI SDK’s poll mode: each doStatus query hangs under the caller’s span, the download too', async () => {
    const omni = provider();
    const { spans, app } = await underAppSpan('app.poll', () =>
      generateVideo({ model: omni.video('omni_flash'), prompt: 'a paper boat', duration: 4, poll: { intervalMs: 2_000 } }),
    );
    expectOneTrace(spans, app);
    expect(isChildOf(span(spans, 'omnimedia.videos.generate'), app), tree(spans)).toBe(true);
    const queries = childrenOf(spans, app).filter((s) => s.name === 'GET /v1/tasks/{task_id}');
    expect(queries.length, tree(spans)).toBeGreaterThan(1);
    expect(isChildOf(span(spans, 'omnimedia.files.download'), app), tree(spans)).toBe(true);
  });
});
