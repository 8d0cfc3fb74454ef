// Task progression (spec 2.1, 3) under vitest's fake timers: the mock reads the clock at call
// time, so advancing fake time moves its tasks.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMockService, type MockService } from 'omnimedia/testing';
import { get, imageParts, post, uploadPhoto, uploadVideo } from './mock-helpers.ts';

let mock: MockService;
beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
  mock = createMockService({ durations: { pending: 1000, image: 4000, imageEdit: 6000, video: 10_000, videoEdit: 8000 } });
});
afterEach(() => {
  mock.close();
  vi.useRealTimers();
});

async function submit(path: string, body: unknown): Promise<string> {
  const response = await post(mock, path, body);
  expect(response.status).toBeLessThan(300);
  return ((await response.json()) as { task_id: string }).task_id;
}
const query = async (id: string) => (await (await get(mock, `/v1/tasks/${id}`)).json()) as Record<string, unknown>;
const T0 = Date.parse('2026-01-01T00:00:00Z') / 1000;

describe('an image task', () => {
  it('moves pending → processing → completed on the configured durations', async () => {
    const id = await submit('/v1/images/generations', { model: 'omni-image', prompt: 'p', size: '1536x1024', n: 2, quality: 'high' });
    expect(await query(id)).toEqual({
      task_id: id,
      status: 'pending',
      model: 'omni-image',
      operation: 'image_generation',
      media_type: 'image',
      created_at: T0,
      attempt_count: 0,
      attempts: [],
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await query(id)).toMatchObject({ status: 'processing', attempt_count: 0 });
    await vi.advanceTimersByTimeAsync(3999);
    expect((await query(id)).status).toBe('processing');
    await vi.advanceTimersByTimeAsync(1);
    const done = await query(id);
    expect(done).toEqual({
      task_id: id,
      status: 'completed',
      model: 'omni-image',
      operation: 'image_generation',
      media_type: 'image',
      provider: 'omni-mock-1',
      elapsed_s: 4,
      total_elapsed_s: 4,
      created_at: T0,
      completed_at: T0 + 5,
      data: [
        { url: `https://api.omnimedia.test/files/results/${id}/0.png` },
        { url: `https://api.omnimedia.test/files/results/${id}/1.png` },
      ],
      // 1536x1024 = 6 units per image, doubled for high quality, times n = 2.
      total_cost: 24,
      attempt_count: 1,
      attempts: [{ attempt_no: 1, provider: 'omni-mock-1', status: 'completed', elapsed_s: 4 }],
    });
    expect(mock.task(id)).toEqual(done);
  });

  it('an edit takes its own (longer) duration', async () => {
    const photo = await uploadPhoto(mock);
    const id = await submit('/v1/images/edits', { model: 'm', prompt: 'p', image: photo.url });
    await vi.advanceTimersByTimeAsync(5000);
    expect((await query(id)).status).toBe('processing');
    await vi.advanceTimersByTimeAsync(2000);
    expect(await query(id)).toMatchObject({ status: 'completed', operation: 'image_editing', elapsed_s: 6 });
  });

  it('serves no result file before completion', async () => {
    const id = await submit('/v1/images/generations', { model: 'm', prompt: 'p' });
    expect((await get(mock, `/files/results/${id}/0.png`)).status).toBe(404);
    await vi.advanceTimersByTimeAsync(5000);
    expect((await get(mock, `/files/results/${id}/0.png`)).status).toBe(200);
    expect((await get(mock, `/files/results/${id}/1.png`)).status).toBe(404);
  });
});

describe('a video task', () => {
  it('reports normalized_model, cost and one mp4', async () => {
    const a = await uploadPhoto(mock);
    const id = await submit('/v1/video/generate', { model: 'omni_flash_components', messages: imageParts(a.url), seconds: '8', resolution: '1080p' });
    await vi.advanceTimersByTimeAsync(11_000);
    expect(await query(id)).toMatchObject({
      status: 'completed',
      normalized_model: 'omni_flash_components_1080p_8s',
      operation: 'video_generation',
      media_type: 'video',
      total_cost: 160,
      elapsed_s: 10,
      data: [{ url: expect.stringMatching(/\/0\.mp4$/) }],
    });
  });

  it('an edit completes on its own duration', async () => {
    const clip = await uploadVideo(mock);
    const id = await submit('/v1/video/edits', { model: 'omni_flash_edit', messages: [{ role: 'user', content: 'snow' }], input_video: { upload_id: clip.upload_id } });
    await vi.advanceTimersByTimeAsync(8999);
    expect((await query(id)).status).toBe('processing');
    await vi.advanceTimersByTimeAsync(1);
    expect(await query(id)).toMatchObject({ status: 'completed', normalized_model: 'omni_flash_edit_720p', operation: 'video_editing' });
  });
});

describe('attempts', () => {
  it('after a scripted failure: attempts lists the failed one, then the completed one at another provider', async () => {
    mock.failNextAttempt('provider_timeout');
    const id = await submit('/v1/video/generate', { model: 'omni_flash', messages: [{ role: 'user', content: 'x' }], seconds: '4' });
    await vi.advanceTimersByTimeAsync(1000 + 10_000);
    expect(await query(id)).toMatchObject({
      status: 'processing',
      attempt_count: 1,
      attempts: [{ attempt_no: 1, provider: 'omni-mock-1', status: 'failed', fail_reason: 'provider_timeout', elapsed_s: 10 }],
    });
    await vi.advanceTimersByTimeAsync(10_000);
    const done = await query(id);
    expect(done).toMatchObject({
      status: 'completed',
      provider: 'omni-mock-2',
      attempt_count: 2,
      elapsed_s: 10,
      total_elapsed_s: 20,
      attempts: [
        { attempt_no: 1, status: 'failed', fail_reason: 'provider_timeout' },
        { attempt_no: 2, provider: 'omni-mock-2', status: 'completed', elapsed_s: 10 },
      ],
    });
    expect(done.total_elapsed_s as number).toBeGreaterThan(done.elapsed_s as number);
    // Only the next task was scripted.
    const next = await submit('/v1/images/generations', { model: 'm', prompt: 'p' });
    await vi.advanceTimersByTimeAsync(5000);
    expect((await query(next)).attempt_count).toBe(1);
  });

  it('failNextTask: every attempt fails, the task ends failed with no data and no cost', async () => {
    mock.failNextTask('content_policy', { attempts: 2 });
    const id = await submit('/v1/images/generations', { model: 'm', prompt: 'p' });
    await vi.advanceTimersByTimeAsync(9000);
    const failed = await query(id);
    expect(failed).toMatchObject({
      status: 'failed',
      attempt_count: 2,
      total_cost: 0,
      attempts: [
        { status: 'failed', fail_reason: 'content_policy' },
        { status: 'failed', fail_reason: 'content_policy' },
      ],
    });
    expect(failed.data).toBeUndefined();
  });

  it('failTask ends a running task now', async () => {
    const id = await submit('/v1/video/generate', { model: 'omni_flash', messages: [{ role: 'user', content: 'x' }] });
    await vi.advanceTimersByTimeAsync(3000);
    mock.failTask(id, 'provider_error');
    expect(await query(id)).toMatchObject({
      status: 'failed',
      attempts: [{ attempt_no: 1, status: 'failed', fail_reason: 'provider_error', elapsed_s: 2 }],
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await query(id)).status).toBe('failed');
    expect(() => mock.failTask(id)).toThrow(/already ended/);
  });

  it('failTask on a pending task fails its first attempt at once', async () => {
    const id = await submit('/v1/images/generations', { model: 'm', prompt: 'p' });
    mock.failTask(id, 'provider_error');
    expect(await query(id)).toMatchObject({ status: 'failed', attempt_count: 1 });
  });

  it('completeTask ends a running task now as completed, with its results', async () => {
    const id = await submit('/v1/video/generate', { model: 'omni_flash', messages: [{ role: 'user', content: 'x' }] });
    await vi.advanceTimersByTimeAsync(3000);
    expect((await query(id)).status).toBe('processing');
    mock.completeTask(id);
    const done = await query(id);
    expect(done).toMatchObject({
      status: 'completed',
      attempt_count: 1,
      attempts: [{ attempt_no: 1, status: 'completed', elapsed_s: 2 }],
      elapsed_s: 2,
      total_elapsed_s: 2,
      completed_at: T0 + 3,
      data: [{ url: expect.stringMatching(new RegExp(`/files/results/${id}/0\\.mp4$`)) }],
    });
    expect((await get(mock, (done.data as { url: string }[])[0]!.url)).status).toBe(200);
    // It stays completed: the attempts it had planned are gone.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await query(id)).toEqual(done);
    expect(() => mock.completeTask(id)).toThrow(/already ended/);
    expect(() => mock.completeTask('task_unknown')).toThrow(/no task task_unknown/);
  });

  it('completeTask on a pending task completes its first attempt at once', async () => {
    const id = await submit('/v1/images/generations', { model: 'm', prompt: 'p', n: 2 });
    mock.completeTask(id);
    expect(await query(id)).toMatchObject({ status: 'completed', attempt_count: 1, attempts: [{ status: 'completed' }], data: [{}, {}] });
  });
});

describe('uploads expire after 24 hours', () => {
  it('an expired image URL is refused in an edit, and no longer served', async () => {
    const photo = await uploadPhoto(mock);
    await vi.advanceTimersByTimeAsync(24 * 3600 * 1000 - 1000);
    expect((await post(mock, '/v1/images/edits', { model: 'm', prompt: 'p', image: photo.url })).status).toBe(200);
    await vi.advanceTimersByTimeAsync(1000);
    const response = await post(mock, '/v1/images/edits', { model: 'm', prompt: 'p', image: photo.url });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'image', message: expect.stringMatching(/expired/) } });
    expect((await get(mock, photo.url)).status).toBe(404);
  });

  it('an expired upload_id is refused in a video edit', async () => {
    const clip = await uploadVideo(mock);
    await vi.advanceTimersByTimeAsync(24 * 3600 * 1000);
    const response = await post(mock, '/v1/video/edits', { model: 'omni_flash_edit', messages: [{ role: 'user', content: 'x' }], input_video: { upload_id: clip.upload_id } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/expired/) } });
  });
});

describe('durations', () => {
  it('setDurations applies to tasks submitted afterwards', async () => {
    const before = await submit('/v1/images/generations', { model: 'm', prompt: 'p' });
    mock.setDurations({ pending: 0, image: 200 });
    const after = await submit('/v1/images/generations', { model: 'm', prompt: 'p' });
    await vi.advanceTimersByTimeAsync(200);
    expect((await query(after)).status).toBe('completed');
    expect((await query(before)).status).toBe('pending');
    // An attempt shorter than a second still reports 1 s.
    expect((await query(after)).elapsed_s).toBe(1);
  });

  it('reset forgets tasks, uploads and controls', async () => {
    await uploadPhoto(mock);
    const id = await submit('/v1/images/generations', { model: 'm', prompt: 'p' });
    mock.failNextAttempt().rateLimitNext(3);
    mock.reset();
    expect(mock.tasks()).toEqual([]);
    expect(mock.uploads()).toEqual([]);
    expect((await get(mock, `/v1/tasks/${id}`)).status).toBe(404);
    expect((await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' })).status).toBe(200);
  });
});
