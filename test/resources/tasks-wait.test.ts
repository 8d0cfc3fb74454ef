import { delay, http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NotFoundError, OmniMedia, TaskFailedError, WaitTimeoutError, type TaskResult } from '../../src/index.ts';
import { advance } from '../helpers/clock.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';

const server = useMsw();
const T0 = 1_700_000_000_000;
const TASKS = `${BASE_URL}/v1/tasks/:id`;

beforeEach(() => {
  // Only timers and the clock: MSW's own plumbing keeps running on real microtasks.
  vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const client = (options: ConstructorParameters<typeof OmniMedia>[0] = {}) =>
  new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, ...options });

/** Record every request as [method path, ms after T0]. */
function recordRequests() {
  const log: [string, number][] = [];
  server.events.on('request:start', ({ request }) => {
    log.push([`${request.method} ${new URL(request.url).pathname}`, Date.now() - T0]);
  });
  return log;
}

const pending = (id: string): TaskResult => ({ task_id: id, status: 'pending' });
const completed = (id: string, extra: Partial<TaskResult> = {}): TaskResult => ({
  task_id: id,
  status: 'completed',
  data: [{ url: `https://cdn.test/${id}.png` }],
  elapsed_s: 9,
  ...extra,
});

/** A task query handler that completes `id` at `doneAt` ms after T0. */
const taskDoneAt = (doneAt: number, extra: Partial<TaskResult> = {}) =>
  http.get(TASKS, ({ params }) => {
    const id = String(params.id);
    return HttpResponse.json(Date.now() - T0 >= doneAt ? completed(id, extra) : pending(id));
  });

describe('TaskPromise', () => {
  it('await alone gives the submission and sends no query', async () => {
    const log = recordRequests();
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ task_id: 'img1', status: 'pending' })));
    const submission = await client().images.generate({ model: 'm', prompt: 'p' });
    expect(submission).toEqual({ task_id: 'img1', status: 'pending' });
    await advance(60_000);
    expect(log.map(([what]) => what)).toEqual(['POST /v1/images/generations']);
  });

  it('.wait() awaits the submission response, then queries 3 s after submitting', async () => {
    const log = recordRequests();
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async () => {
        await delay(2_000);
        return HttpResponse.json({ task_id: 'img1', status: 'pending' });
      }),
      taskDoneAt(8_000),
    );
    const done = client().images.generate({ model: 'm', prompt: 'p' }).wait();
    await advance(20_000);
    const task = await done;
    expect(task.data?.[0]?.url).toBe('https://cdn.test/img1.png');
    expect(log).toEqual([
      ['POST /v1/images/generations', 0],
      ['GET /v1/tasks/img1', 3_000],
      ['GET /v1/tasks/img1', 5_500],
      ['GET /v1/tasks/img1', 8_000],
    ]);
  });

  it('a failed submission rejects .wait() without any query or sleep', async () => {
    const log = recordRequests();
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ error: 'bad' }, { status: 400 })));
    const error = await client().images.generate({ model: 'm', prompt: 'p' }).wait().catch((e) => e);
    expect(error.status).toBe(400);
    expect(log).toHaveLength(1);
    expect(Date.now()).toBe(T0);
  });

  it('a video wait learns the duration of its normalized_model', async () => {
    server.use(
      http.post(`${BASE_URL}/v1/video/generate`, () =>
        HttpResponse.json({ task_id: 'v1', status: 'pending', normalized_model: 'omni_flash_720p_6s' }, { status: 202 }),
      ),
      taskDoneAt(40_000, { elapsed_s: 40 }),
    );
    const c = client();
    const done = c.videos.generate({ prompt: 'a fox', seconds: 6 }).wait();
    await advance(60_000);
    await done;
    expect(c.taskDurations.expected('omni_flash_720p_6s')).toEqual({ from: 32_000, to: 48_000, samples: 1 });
  });

  it('an image wait learns under its operation, model, size, n and quality', async () => {
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ task_id: 'i1', status: 'pending' })),
      taskDoneAt(5_000, { elapsed_s: 5 }),
    );
    const c = client();
    const done = c.images.generate({ model: 'omni-image', prompt: 'p', size: '1024x1024', n: 2 }).wait();
    await advance(20_000);
    await done;
    expect((await c.taskDurations.expected('image_generation:omni-image:1024x1024:n2:auto'))?.samples).toBe(1);
  });
});

describe('tasks.wait', () => {
  it('resumes by id: the first query goes out at once, on a keyless client', async () => {
    const log = recordRequests();
    server.use(taskDoneAt(0));
    const keyless = new OmniMedia({ baseURL: BASE_URL });
    const done = keyless.tasks.wait('t-old');
    await advance(0);
    const task = await done;
    expect(task.status).toBe('completed');
    expect(log).toEqual([['GET /v1/tasks/t-old', 0]]);
  });

  it('retries 503, a reset connection and 429 (honouring Retry-After) inside the wait', async () => {
    const log = recordRequests();
    const answers = [
      () => HttpResponse.json({ error: 'no provider' }, { status: 503 }),
      () => HttpResponse.error(),
      () => HttpResponse.json({ error: 'slow down' }, { status: 429, headers: { 'Retry-After': '7' } }),
      () => HttpResponse.json(completed('t1')),
    ];
    let i = 0;
    server.use(http.get(TASKS, () => (answers[i++] ?? answers[3]!)()));
    const done = client().tasks.wait('t1');
    await advance(30_000);
    expect((await done).status).toBe('completed');
    // 0.5 s and 1 s backoff (×0.875 with this jitter), then Retry-After 7 s (+5 % jitter);
    // fake timers round to whole ms.
    expect(log.map(([, at]) => at)).toEqual([0, 438, 1_313, 8_663]);
  });

  it('keeps retrying transient errors until the deadline, then throws WaitTimeoutError', async () => {
    let queries = 0;
    server.use(
      http.get(TASKS, () => {
        queries++;
        return HttpResponse.json({ error: 'boom' }, { status: 500 });
      }),
    );
    const outcome = client().tasks.wait('t1', { timeout: 60_000 }).catch((e: unknown) => e);
    await advance(60_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ taskId: 't1', lastTask: undefined });
    expect(queries).toBeGreaterThan(5);
  });

  it('honours a Retry-After longer than the retry policy’s 60 s inside a wait', async () => {
    const log = recordRequests();
    let i = 0;
    server.use(
      http.get(TASKS, () =>
        i++ === 0
          ? HttpResponse.json({}, { status: 429, headers: { 'Retry-After': '120' } })
          : HttpResponse.json(completed('t1')),
      ),
    );
    const done = client().tasks.wait('t1');
    await advance(200_000);
    await done;
    const [first, second] = log.map(([, at]) => at);
    expect(first).toBe(0);
    // Honoured, never sooner, with the policy’s jitter of up to 10 % on top.
    expect(second).toBeGreaterThanOrEqual(120_000);
    expect(second).toBeLessThanOrEqual(132_000);
  });

  it('throws NotFoundError carrying the task id on 404, and stops', async () => {
    let queries = 0;
    server.use(
      http.get(TASKS, () => {
        queries++;
        return HttpResponse.json({ error: 'no such task' }, { status: 404 });
      }),
    );
    const outcome = client().tasks.wait('ghost').catch((e) => e);
    await advance(0);
    const error = await outcome;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.taskId).toBe('ghost');
    await advance(60_000);
    expect(queries).toBe(1);
  });

  it('rejects with TaskFailedError carrying the task id, attempts and last fail_reason', async () => {
    server.use(
      http.get(TASKS, () =>
        HttpResponse.json({
          task_id: 't1',
          status: 'failed',
          attempt_count: 2,
          attempts: [
            { attempt_no: 1, provider: 'p1', status: 'failed', fail_reason: 'provider_timeout' },
            { attempt_no: 2, provider: 'p2', status: 'failed', fail_reason: 'provider_error' },
          ],
        }),
      ),
    );
    const outcome = client().tasks.wait('t1').catch((e) => e);
    await advance(0);
    const error = await outcome;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({ taskId: 't1', failReason: 'provider_error' });
    expect(error.attempts).toHaveLength(2);
  });

  it('keeps waiting through statuses it does not know', async () => {
    const statuses = ['queued', 'in_progress', 'uploading', 'completed'];
    let i = 0;
    server.use(http.get(TASKS, () => HttpResponse.json({ task_id: 't1', status: statuses[i++] ?? 'completed' })));
    const seen: string[] = [];
    const done = client().tasks.wait('t1', { onProgress: (t) => seen.push(t.status) });
    await advance(30_000);
    await done;
    expect(seen).toEqual(statuses);
  });

  it('ends at once when a verified callback publishes the task', async () => {
    const log = recordRequests();
    server.use(taskDoneAt(Number.POSITIVE_INFINITY));
    const c = client();
    const done = c.tasks.wait('t1');
    await advance(4_000);
    c.taskEvents.publish(completed('t1'));
    expect((await done).data?.[0]?.url).toBe('https://cdn.test/t1.png');
    await advance(120_000);
    expect(log.map(([, at]) => at)).toEqual([0, 2_500]);
    expect(c.taskEvents.size).toBe(0);
    expect(c.pollScheduler.pending).toBe(0);
  });

  it('aborts at once with the signal’s reason, during a sleep', async () => {
    const log = recordRequests();
    server.use(taskDoneAt(Number.POSITIVE_INFINITY));
    const controller = new AbortController();
    const outcome = client().tasks.wait('t1', { signal: controller.signal }).catch((e: unknown) => e);
    await advance(1_000);
    controller.abort();
    const error = (await outcome) as DOMException;
    expect(error.name).toBe('AbortError');
    expect(Date.now() - T0).toBe(1_000);
    await advance(60_000);
    expect(log).toHaveLength(1);
  });

  it('rejects a bad id before any request', async () => {
    const error = await client().tasks.wait('').catch((e) => e);
    expect(error.name).toBe('ValidationError');
  });
});

describe('tasks.watch', () => {
  it('yields each change and ends at completion', async () => {
    const statuses = ['pending', 'pending', 'processing', 'processing', 'completed'];
    let i = 0;
    server.use(http.get(TASKS, () => HttpResponse.json({ task_id: 't1', status: statuses[i++] ?? 'completed' })));
    const seen: string[] = [];
    const watching = (async () => {
      for await (const task of client().tasks.watch('t1')) seen.push(task.status);
    })();
    await advance(60_000);
    await watching;
    expect(seen).toEqual(['pending', 'processing', 'completed']);
  });

  it('sends no request after break', async () => {
    const log = recordRequests();
    server.use(taskDoneAt(Number.POSITIVE_INFINITY));
    const c = client();
    const watching = (async () => {
      for await (const task of c.tasks.watch('t1')) if (task.status === 'pending') break;
    })();
    await advance(0);
    await watching;
    await advance(600_000);
    expect(log).toEqual([['GET /v1/tasks/t1', 0]]);
    expect(c.pollScheduler.pending).toBe(0);
  });
});

describe('many waits, one budget', () => {
  it('keeps 200 concurrent waits under the client’s cap in every one-second window', async () => {
    const cap = 10;
    const log = recordRequests();
    // Task i completes at i * 100 ms.
    server.use(
      http.get(TASKS, ({ params }) => {
        const id = String(params.id);
        const doneAt = Number(id.slice(1)) * 100;
        return HttpResponse.json(Date.now() - T0 >= doneAt ? completed(id) : pending(id));
      }),
    );
    const c = client({ maxPollsPerSecond: cap });
    const waits = Array.from({ length: 200 }, (_, i) => c.tasks.wait(`t${i}`));
    await advance(120_000);
    const results = await Promise.all(waits);
    expect(results.every((r) => r.status === 'completed')).toBe(true);
    const times = log.map(([, at]) => at);
    expect(times.length).toBeGreaterThanOrEqual(200);
    let peak = 0;
    for (const start of times) peak = Math.max(peak, times.filter((t) => t >= start && t < start + 1_000).length);
    expect(peak).toBe(cap);
    expect(c.pollScheduler.pending).toBe(0);
  });

  it('rejects a bad maxPollsPerSecond', () => {
    expect(() => client({ maxPollsPerSecond: 0 })).toThrow(/maxPollsPerSecond/);
  });
});
