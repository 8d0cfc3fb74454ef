// The real client against the mock service through MSW: the SDK end to end, no network.
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BadRequestError,
  InsufficientBalanceError,
  InternalServerError,
  OmniMedia,
  PermissionDeniedError,
  RateLimitError,
  TaskFailedError,
} from 'omnimedia';
import { createMockService, type MswMockService } from 'omnimedia/testing/msw';
import { runInFakeTime } from '../helpers/clock.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { fixture, photo } from '../testing/mock-helpers.ts';

const server = useMsw();
let mock: MswMockService;
let client: OmniMedia;

beforeEach(() => {
  // Only the clock and timeouts are faked; MSW's own machinery keeps its real timers.
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  mock = createMockService({ baseURL: BASE_URL });
  server.use(...mock.handlers);
  client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off' });
});
afterEach(() => {
  mock.close();
  vi.useRealTimers();
});

/** Let a promise settle while fake time runs: the mock's tasks take seconds of it. */
const run = <T>(promise: Promise<T>, ms = 120_000): Promise<T> => runInFakeTime(promise, { ms, toNextTimer: true });

describe('SDK ↔ mock via MSW', () => {
  it('uploads an image, edits it, waits, and downloads a PNG of the requested size', async () => {
    const upload = await client.uploads.image(photo(), { filename: 'photo.png' });
    expect(upload).toMatchObject({ width: 512, height: 512, content_type: 'image/png', filename: 'photo.png' });
    const progress: string[] = [];
    const task = await run(
      client.images
        .edit({ model: 'omni-image', prompt: 'make it night', image: upload, size: '1536x1024' })
        .wait({ onProgress: (t) => progress.push(t.status) }),
    );
    expect(task).toMatchObject({ status: 'completed', operation: 'image_editing', attempt_count: 1 });
    expect(progress.at(-1)).toBe('completed');
    expect(progress).toContain('processing');
    const png = new Uint8Array(await (await fetch(task.data![0]!.url)).arrayBuffer());
    const view = new DataView(png.buffer);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([1536, 1024]);
  });

  it('generates a video from images; a failed first attempt still completes, with both attempts', async () => {
    const a = await client.uploads.image(photo());
    const b = await client.uploads.image(fixture('tiny.jpg'));
    mock.failNextAttempt('provider_timeout');
    const submission = client.videos.generate({ prompt: 'they start to dance', images: [a, b.url], seconds: 8, resolution: '1080p' });
    const submitted = await submission;
    expect(submitted).toMatchObject({ status: 'pending', model: 'omni_flash_components', normalized_model: 'omni_flash_components_1080p_8s' });
    const video = await run(submission.wait());
    expect(video).toMatchObject({ status: 'completed', attempt_count: 2, provider: 'omni-mock-2' });
    expect(video.attempts?.[0]).toMatchObject({ status: 'failed', fail_reason: 'provider_timeout' });
    expect(video.total_elapsed_s).toBeGreaterThan(video.elapsed_s!);
  });

  it('edits an uploaded video', async () => {
    const clip = await client.uploads.video(fixture('tiny.webm'));
    const edited = await run(client.videos.edit({ prompt: 'make it snow', input_video: clip }).wait());
    expect(edited).toMatchObject({ status: 'completed', normalized_model: 'omni_flash_edit_720p', media_type: 'video' });
  });

  it('a failed task rejects the wait with TaskFailedError carrying the reason and task id', async () => {
    mock.failNextTask('content_policy');
    const submission = client.images.generate({ model: 'm', prompt: 'p' });
    const { task_id } = await submission;
    const error = await run(submission.wait()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({ failReason: 'content_policy', taskId: task_id });
  });

  it('a 429 with Retry-After is retried once the service allows, and only one task exists', async () => {
    mock.rateLimitNext(1, { retryAfter: 2 });
    const submitted = await run(client.images.generate({ model: 'm', prompt: 'p' }));
    expect(submitted.status).toBe('pending');
    expect(mock.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(mock.tasks()).toHaveLength(1);
  });

  it('a 429 beyond maxRetries reaches the caller as RateLimitError with retryAfter', async () => {
    mock.rateLimitNext(5, { retryAfter: 3 });
    const error = await run(client.images.generate({ model: 'm', prompt: 'p' }, { maxRetries: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(3);
  });

  it('a 500 on a submission is never retried (it may have been accepted): one request, InternalServerError', async () => {
    mock.internalErrorAlways({ on: ['submissions'] });
    const error = await run(client.images.generate({ model: 'm', prompt: 'p' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(mock.requests).toHaveLength(1);
  });

  it('a 503 on a submission is retried', async () => {
    mock.unavailableNext(2);
    await run(client.videos.generate({ prompt: 'x' }));
    expect(mock.requests.map((r) => r.status)).toEqual([503, 503, 202]);
  });

  it('the wait rides out 500s on the task query', async () => {
    const submission = client.images.generate({ model: 'm', prompt: 'p' });
    await submission;
    mock.internalErrorAlways({ on: ['tasks'] });
    const waiting = run(submission.wait());
    await vi.advanceTimersByTimeAsync(8000);
    mock.clearScenario();
    const task = await waiting;
    expect(task.status).toBe('completed');
    expect(mock.requests.some((r) => r.path.startsWith('/v1/tasks/') && r.status === 500)).toBe(true);
  });

  it.each([
    [402, InsufficientBalanceError],
    [403, PermissionDeniedError],
  ] as const)('forced %i maps to its error class', async (status, ErrorClass) => {
    mock.forceStatus(status);
    const error = await client.videos.generate({ prompt: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect((error as { body: unknown }).body).toMatchObject({ error: { code: expect.any(String) } });
  });

  it("the service's own 400 reaches the caller: an image URL that is not an upload", async () => {
    const error = await client.images.edit({ model: 'm', prompt: 'p', image: 'https://example.com/cat.png' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).body).toMatchObject({ error: { param: 'image' } });
    expect((error as Error).message).toMatch(/returned by the image upload endpoint/);
  });

  it('under MSW the completion callback can land on an MSW handler too', async () => {
    const received: unknown[] = [];
    server.use(
      http.post('https://app.example.test/hooks/omnimedia', async ({ request }) => {
        received.push(await request.json());
        return HttpResponse.json({ ok: true });
      }),
    );
    const submission = client.images.generate({ model: 'm', prompt: 'p', callback_url: 'https://app.example.test/hooks/omnimedia' });
    const task = await run(submission.wait());
    await mock.callbacksSettled();
    expect(received).toEqual([await client.tasks.retrieve(task.task_id)]);
    expect(mock.callbackDeliveries).toMatchObject([{ ok: true, status: 200, attempt: 1 }]);
  });

  it('a keyless client can poll a task (the task query needs no key)', async () => {
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p' });
    const keyless = new OmniMedia({ baseURL: BASE_URL, apiKey: undefined, logLevel: 'off' });
    const done = await run(keyless.tasks.wait(task_id));
    expect(done.status).toBe('completed');
  });
});
