// The journal of accepted submissions: every accepted submission is written before the call
// resolves, and cleared once its result is seen, by a wait or by a verified callback. A journal
// that fails costs no task.
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { OmniMedia, ValidationError } from 'omnimedia';
import type { Coordination } from 'omnimedia/coordination';
import { runInFakeTime } from '../helpers/clock.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';

const server = useMsw();
const silent = { error() {}, warn() {}, info() {}, debug() {} };
const COMPLETED = { task_id: 't_1', status: 'completed', data: [{ url: 'https://r.test/1.png' }] };

function client() {
  return new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logger: silent });
}

describe('the journal of accepted submissions', () => {
  it('holds a submission from before the call resolves until a wait sees its result', async () => {
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ task_id: 't_1', status: 'pending' })),
      http.get(`${BASE_URL}/v1/tasks/t_1`, () => HttpResponse.json(COMPLETED)),
    );
    const c = client();
    const pending = c.images.generate({ model: 'm', prompt: 'p' });
    const submission = await pending;
    const entries = await c.journal.list();
    expect(entries).toEqual([{ task_id: submission.task_id, kind: 'image_generation', submitted_at: expect.any(Number) }]);
    await pending.wait({ initialDelay: 0 });
    expect(await c.journal.list()).toEqual([]);
  });

  it('is cleared by a verified callback of a finished task', async () => {
    server.use(
      http.post(`${BASE_URL}/v1/video/generate`, () => HttpResponse.json({ task_id: 't_1', status: 'pending' }, { status: 202 })),
      http.get(`${BASE_URL}/v1/tasks/t_1`, () => HttpResponse.json(COMPLETED)),
    );
    const c = client();
    await c.videos.generate({ prompt: 'a fox' });
    expect((await c.journal.list()).map((e) => e.kind)).toEqual(['video_generation']);
    const answer = await c.callbacks.handler(() => {})(new Request('https://me.test/cb', { method: 'POST', body: JSON.stringify(COMPLETED) }));
    expect(answer.status).toBe(200);
    expect(await c.journal.list()).toEqual([]);
  });

  it('pending() lists a task whose wait gave up on this live instance (timed out, aborted), until a wait takes it again', async () => {
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ task_id: 't_1', status: 'pending' })),
      http.get(`${BASE_URL}/v1/tasks/t_1`, () => HttpResponse.json({ task_id: 't_1', status: 'processing' })),
    );
    const c = client();
    const pending = c.images.generate({ model: 'm', prompt: 'p' });
    await pending;
    expect(await c.tasks.pending()).toEqual([]); // submitted here: this process expects its result
    await expect(pending.wait({ initialDelay: 0, timeout: 50 })).rejects.toMatchObject({ name: 'WaitTimeoutError' });
    expect((await c.tasks.pending()).map((e) => e.task_id)).toEqual(['t_1']); // was: always [] in one process
    const controller = new AbortController();
    const again = c.tasks.wait('t_1', { signal: controller.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await c.tasks.pending()).toEqual([]); // waited on again
    controller.abort();
    await again;
    expect((await c.tasks.pending()).map((e) => e.task_id)).toEqual(['t_1']); // given up again
  });

  it('a journal that fails costs no task: the submission still resolves with its id', async () => {
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ task_id: 't_1', status: 'pending' })));
    const c = client();
    (c.journal as { record: unknown }).record = () => Promise.reject(new Error('store down'));
    await expect(c.images.generate({ model: 'm', prompt: 'p' })).resolves.toMatchObject({ task_id: 't_1' });
  });

  it('a journal that never answers holds no billed task back: the abort, or the call’s timeout, gives the caller its id (was: never settled)', async () => {
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ task_id: 't_1', status: 'pending' })));
    const c = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logger: silent, coordination: hungCoordination() });
    // Fake time, moved from one timer to the next once MSW is quiet: each call ends at its own
    // 300 ms exactly, whatever the machine (was: both under 2,000 ms of real time; 2,215 at a load of 30).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new DOMException('the caller’s 300 ms', 'TimeoutError')), 300);
      let started = Date.now();
      await expect(runInFakeTime(c.images.generate({ model: 'm', prompt: 'p' }, { signal: controller.signal, timeout: 5_000 }), { toNextTimer: true, step: 1 })).resolves.toMatchObject({ task_id: 't_1' });
      expect(Date.now() - started).toBe(300); // the abort, not the call's 5 s
      started = Date.now();
      await expect(runInFakeTime(c.images.generate({ model: 'm', prompt: 'p' }, { timeout: 300 }), { toNextTimer: true, step: 1 })).resolves.toMatchObject({ task_id: 't_1' });
      expect(Date.now() - started).toBe(300);
    } finally {
      vi.useRealTimers();
    }
  });
});

/** A custom Coordination whose every store call never settles. */
function hungCoordination(): Coordination {
  const never = () => new Promise<never>(() => {});
  const journal = { record: never, adopt: never, release: never, clear: never, list: never, pending: never };
  return {
    dedupe: { claim: never, release: never, complete: never },
    uploads: { get: never, set: never, delete: never },
    durations: { get: never, add: never },
    events: { publish: never, subscribe: () => () => {}, latest: never },
    journal,
    leases: { ttlMs: 1_000, hold: never, release: never },
    budget: () => ({ maxPerSecond: 10, take: never }),
    rateLimits: { take: never },
    close: async () => {},
  };
}

describe('per-call options are checked before anything is sent', () => {
  it.each([
    ['timeout', { timeout: 0 }],
    ['timeout', { timeout: 1.5 }],
    ['maxRetries', { maxRetries: -1 }],
    ['signal', { signal: 'stop' }],
  ])('%s: %j → ValidationError naming it, no request', async (path, options) => {
    let requests = 0;
    server.use(http.all(`${BASE_URL}/*`, () => (requests++, HttpResponse.json({}))));
    const c = client();
    for (const call of [
      () => c.images.generate({ model: 'm', prompt: 'p' }, options as never),
      () => c.tasks.retrieve('t_1', options as never),
      () => c.uploads.image(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), options as never),
      () => c.files.download('https://r.test/1.png', options as never),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
    }
    expect(requests).toBe(0);
  });
});
