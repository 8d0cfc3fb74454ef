import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskFailedError, ValidationError, WaitTimeoutError } from '../../src/errors.ts';
import { MemoryDurationsStore, MemoryTaskEvents } from '../../src/coordination/memory.ts';
import { DEFAULT_INITIAL_DELAY_MS } from '../../src/options.ts';
import { observeTask, waitForTask, watchTask, type PollTarget } from '../../src/waiting/poller.ts';
import { PollScheduler } from '../../src/waiting/scheduler.ts';
import { TaskDurations } from '../../src/waiting/durations.ts';
import type { TaskResult } from '../../src/schemas/task.ts';

const T0 = 1_700_000_000_000;

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  // No jitter: every gap is exactly the planned one.
  vi.spyOn(Math, 'random').mockReturnValue(0.5);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A task that completes `durationMs` after T0; every query is recorded (ms after T0). */
function scriptedTask(durationMs: number, overrides: Partial<TaskResult> = {}) {
  const queries: number[] = [];
  const retrieve = async (): Promise<TaskResult> => {
    const at = Date.now() - T0;
    queries.push(at);
    return at >= durationMs
      ? { task_id: 't1', status: 'completed', elapsed_s: durationMs / 1000, data: [{ url: 'https://r/1.png' }], ...overrides }
      : { task_id: 't1', status: 'pending' };
  };
  return { queries, retrieve };
}

function target(retrieve: PollTarget['retrieve'], extra: Partial<PollTarget> = {}): PollTarget & { events: MemoryTaskEvents } {
  return {
    taskId: 't1',
    submittedAt: T0,
    defaultTimeout: 30 * 60_000,
    retrieve,
    scheduler: new PollScheduler(100),
    durations: new TaskDurations(),
    ...extra,
    events: new MemoryTaskEvents(),
  };
}

describe('waitForTask', () => {
  it('queries at the exact default times and resolves with the completed task', async () => {
    const task = scriptedTask(60_000);
    const progress: [string, number, number][] = [];
    const done = waitForTask(target(task.retrieve), {
      onProgress: (t, info) => progress.push([t.status, info.elapsedMs, info.polls]),
    });
    await vi.advanceTimersByTimeAsync(80_000);
    const result = await done;
    expect(result.status).toBe('completed');
    // 3 s, then gaps of 2.5 s while the task is young, then 24 % of its age.
    expect(task.queries).toEqual([3_000, 5_500, 8_000, 10_500, 13_020, 16_145, 20_020, 24_825, 30_783, 38_171, 47_333, 58_693, 72_780]);
    expect(progress.at(-1)).toEqual(['completed', 72_780, 13]);
    expect(progress).toHaveLength(13);
  });

  it('sends the first query at once when the wait starts after the initial delay', async () => {
    const task = scriptedTask(0);
    vi.setSystemTime(T0 + 10_000);
    const done = waitForTask(target(task.retrieve));
    await vi.advanceTimersByTimeAsync(0);
    await done;
    expect(task.queries).toEqual([10_000]);
  });

  it('sends the first query sooner than 3 s when the wait starts 2 s after submission', async () => {
    const task = scriptedTask(0);
    vi.setSystemTime(T0 + 2_000);
    const done = waitForTask(target(task.retrieve));
    await vi.advanceTimersByTimeAsync(5_000);
    await done;
    expect(task.queries).toEqual([DEFAULT_INITIAL_DELAY_MS]);
  });

  it('queries at once for a task of unknown age (a wait by id)', async () => {
    const task = scriptedTask(0);
    const done = waitForTask(target(task.retrieve, { submittedAt: undefined }));
    await vi.advanceTimersByTimeAsync(0);
    await done;
    expect(task.queries).toEqual([0]);
  });

  it('honours initialDelay, interval and maxInterval', async () => {
    const task = scriptedTask(10_000);
    const done = waitForTask(target(task.retrieve), { initialDelay: 1_000, interval: 2_000, maxInterval: 3_000 });
    await vi.advanceTimersByTimeAsync(20_000);
    await done;
    expect(task.queries).toEqual([1_000, 3_000, 5_000, 7_000, 9_000, 11_160]);
  });

  it('rejects at once with the signal’s reason when aborted during a sleep, and stops', async () => {
    const task = scriptedTask(600_000);
    const t = target(task.retrieve);
    const controller = new AbortController();
    const done = waitForTask(t, { signal: controller.signal });
    const outcome = done.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(4_000); // first query at 3 s, next at 5.5 s
    const reason = new DOMException('user gave up', 'AbortError');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(await outcome).toBe(reason);
    expect(Date.now() - T0).toBe(4_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(task.queries).toEqual([3_000]);
    expect(t.scheduler.pending).toBe(0);
    expect(t.events.size).toBe(0);
  });

  it('rejects before any query when the signal is already aborted', async () => {
    const task = scriptedTask(0);
    const error = await waitForTask(target(task.retrieve), { signal: AbortSignal.abort('early') }).catch((e) => e);
    expect(error).toBe('early');
    expect(task.queries).toEqual([]);
  });

  it('throws WaitTimeoutError at the deadline with the task id and the last task seen', async () => {
    const task = scriptedTask(600_000);
    const t = target(task.retrieve);
    const outcome = waitForTask(t, { timeout: 20_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(20_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ taskId: 't1', lastTask: { task_id: 't1', status: 'pending' } });
    expect(Date.now() - T0).toBe(20_000);
    expect(task.queries).toEqual([3_000, 5_500, 8_000, 10_500, 13_020, 16_145]);
    expect(t.scheduler.pending).toBe(0);
  });

  it('throws TaskFailedError with the task, its attempts and the last fail_reason', async () => {
    const attempts = [
      { attempt_no: 1, provider: 'a', status: 'failed', fail_reason: 'provider_timeout', elapsed_s: 30 },
      { attempt_no: 2, provider: 'b', status: 'failed', fail_reason: 'content_rejected', elapsed_s: 4 },
    ];
    const retrieve = async (): Promise<TaskResult> =>
      Date.now() - T0 < 10_000
        ? { task_id: 't1', status: 'processing' }
        : { task_id: 't1', status: 'failed', attempt_count: 2, attempts };
    const outcome = waitForTask(target(retrieve)).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(20_000);
    const error = (await outcome) as TaskFailedError;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error.taskId).toBe('t1');
    expect(error.failReason).toBe('content_rejected');
    expect(error.attempts).toEqual(attempts);
    expect(error.task.status).toBe('failed');
    expect(error.message).toContain('2 attempts');
  });

  it('keeps waiting through unknown statuses', async () => {
    const statuses = ['queued', 'warming_up', 'rendering', 'completed'];
    let i = 0;
    const retrieve = async (): Promise<TaskResult> => ({ task_id: 't1', status: statuses[i++] ?? 'completed' });
    const seen: string[] = [];
    const done = waitForTask(target(retrieve), { onProgress: (t) => seen.push(t.status) });
    await vi.advanceTimersByTimeAsync(30_000);
    expect((await done).status).toBe('completed');
    expect(seen).toEqual(statuses);
  });

  it('rejects bad options with a ValidationError naming the field, before any query', async () => {
    const task = scriptedTask(0);
    const error = await waitForTask(target(task.retrieve), { timeout: -1, interval: 5_000, maxInterval: 1_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.taskId).toBe('t1');
    expect(error.issues.map((i: { path: string }) => i.path)).toEqual(['timeout', 'interval']);
    expect(task.queries).toEqual([]);
  });
});

describe('task events (verified callbacks)', () => {
  it('ends a wait at once when a completed task is published, then stops polling and unsubscribes', async () => {
    const task = scriptedTask(600_000);
    const t = target(task.retrieve);
    const done = waitForTask(t);
    await vi.advanceTimersByTimeAsync(7_000);
    expect(t.events.size).toBe(1);
    t.events.publish({ task_id: 't1', status: 'completed', data: [{ url: 'https://r/cb.png' }] });
    const result = await done;
    expect(result.data?.[0]?.url).toBe('https://r/cb.png');
    expect(Date.now() - T0).toBe(7_000);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(task.queries).toEqual([3_000, 5_500]);
    expect(t.events.size).toBe(0);
    expect(t.scheduler.pending).toBe(0);
  });

  it('rejects with TaskFailedError when a failed task is published', async () => {
    const task = scriptedTask(600_000);
    const t = target(task.retrieve);
    const outcome = waitForTask(t).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_000);
    t.events.publish({ task_id: 't1', status: 'failed', fail_reason: 'provider_timeout' });
    const error = await outcome;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({ taskId: 't1', failReason: 'provider_timeout' });
    expect(task.queries).toEqual([]);
  });

  it('ignores news of other tasks and non-terminal news', async () => {
    const task = scriptedTask(10_000);
    const t = target(task.retrieve);
    const done = waitForTask(t);
    await vi.advanceTimersByTimeAsync(1_000);
    t.events.publish({ task_id: 'other', status: 'completed' });
    t.events.publish({ task_id: 't1', status: 'processing' });
    await vi.advanceTimersByTimeAsync(20_000);
    expect((await done).data?.[0]?.url).toBe('https://r/1.png');
  });
});

describe('learning durations', () => {
  it('queries densely around the end it learned, with fewer queries and less lag', async () => {
    const durations = new TaskDurations();
    const seconds = [58, 61, 57, 63, 60, 59, 62, 60, 58];
    for (const s of seconds) durations.record('omni_flash_720p_10s', { task_id: 'x', status: 'completed', elapsed_s: s });
    const expected = await durations.expected('omni_flash_720p_10s');
    expect(expected?.samples).toBe(8); // the last eight are kept
    const learned = scriptedTask(61_000);
    const done = waitForTask(target(learned.retrieve, { durations, durationKey: 'omni_flash_720p_10s' }));
    await vi.advanceTimersByTimeAsync(90_000);
    await done;
    vi.setSystemTime(T0);
    const plain = scriptedTask(61_000);
    const plainDone = waitForTask(target(plain.retrieve));
    await vi.advanceTimersByTimeAsync(90_000);
    await plainDone;
    expect(plain.queries).toEqual([3_000, 5_500, 8_000, 10_500, 13_020, 16_145, 20_020, 24_825, 30_783, 38_171, 47_333, 58_693, 72_780]);
    expect(learned.queries.length).toBeLessThan(plain.queries.length);
    expect(learned.queries.at(-1)! - 61_000).toBeLessThan(3_000);
    expect(learned.queries[0]).toBe(30_000);
  });

  it('learns from the tasks it waited for, by normalized_model', async () => {
    const durations = new TaskDurations();
    const task = scriptedTask(20_000, { normalized_model: 'omni_flash_720p_4s' });
    const done = waitForTask(target(task.retrieve, { durations }));
    await vi.advanceTimersByTimeAsync(40_000);
    await done;
    expect(durations.expected('omni_flash_720p_4s')).toEqual({ from: 16_000, to: 24_000, samples: 1 });
  });

  it('remembers a bounded number of kinds', () => {
    const store = new MemoryDurationsStore();
    const durations = new TaskDurations(store);
    for (let i = 0; i < 1_000; i++) durations.record(`kind-${i}`, { task_id: 'x', status: 'completed', elapsed_s: 5 });
    expect(store.size).toBe(256);
    expect(durations.expected('kind-0')).toBeUndefined();
    expect(durations.expected('kind-999')).toBeDefined();
  });

  // In any unit (schemas/time.ts): a task published by another instance or a hook is not read
  // by the answer reader first. µs and ns were read as ms (a date in the far future: ignored).
  it.each([
    ['seconds', 1],
    ['ms', 1e3],
    ['µs', 1e6],
    ['ns', 1e9],
  ])('places a wait by id in the learned window using the task’s created_at (%s)', async (_, perSecond) => {
    const durations = new TaskDurations();
    for (const s of [100, 100, 100, 100, 100, 100, 100]) durations.record('k', { task_id: 'x', status: 'completed', elapsed_s: s });
    // Created 80 s ago; expected to end 97..103 s after creation.
    const createdAt = (T0 - 80_000) / 1000;
    const queries: number[] = [];
    const retrieve = async (): Promise<TaskResult> => {
      queries.push(Date.now() - T0);
      const age = Date.now() - createdAt * 1000;
      return { task_id: 't1', status: age >= 100_000 ? 'completed' : 'processing', normalized_model: 'k', created_at: createdAt * perSecond, elapsed_s: 100 };
    };
    const done = waitForTask(target(retrieve, { durations, submittedAt: undefined }));
    await vi.advanceTimersByTimeAsync(60_000);
    await done;
    // At once, then at the window's start (age 97 s), then every 1.2 s (window / 5).
    expect(queries).toEqual([0, 17_000, 18_200, 19_400, 20_600]);
  });

  it('plans plainly with learn: false', async () => {
    const durations = new TaskDurations();
    durations.record('k', { task_id: 'x', status: 'completed', elapsed_s: 60 });
    const task = scriptedTask(20_000);
    const done = waitForTask(target(task.retrieve, { durations, durationKey: 'k' }), { learn: false });
    await vi.advanceTimersByTimeAsync(40_000);
    await done;
    expect(task.queries).toEqual([3_000, 5_500, 8_000, 10_500, 13_020, 16_145, 20_020]);
  });
});

describe('watchTask', () => {
  it('yields each change once, ends at the terminal task', async () => {
    const script = ['pending', 'pending', 'processing', 'processing', 'completed'];
    let i = 0;
    const retrieve = async (): Promise<TaskResult> => ({ task_id: 't1', status: script[i++] ?? 'completed' });
    const seen: string[] = [];
    const watching = (async () => {
      for await (const task of watchTask(target(retrieve))) seen.push(task.status);
    })();
    await vi.advanceTimersByTimeAsync(60_000);
    await watching;
    expect(seen).toEqual(['pending', 'processing', 'completed']);
  });

  it('yields a new attempt as a change', async () => {
    const script: TaskResult[] = [
      { task_id: 't1', status: 'processing', attempt_count: 1, attempts: [{ attempt_no: 1, status: 'processing' }] },
      {
        task_id: 't1',
        status: 'processing',
        attempt_count: 2,
        attempts: [
          { attempt_no: 1, status: 'failed', fail_reason: 'provider_timeout' },
          { attempt_no: 2, status: 'processing' },
        ],
      },
      { task_id: 't1', status: 'completed', attempt_count: 2 },
    ];
    let i = 0;
    const retrieve = async (): Promise<TaskResult> => script[Math.min(i++, script.length - 1)] as TaskResult;
    const counts: (number | null | undefined)[] = [];
    const watching = (async () => {
      for await (const task of watchTask(target(retrieve))) counts.push(task.attempt_count);
    })();
    await vi.advanceTimersByTimeAsync(60_000);
    await watching;
    expect(counts).toEqual([1, 2, 2]);
  });

  it('sends no further query after break', async () => {
    const task = scriptedTask(600_000);
    const t = target(task.retrieve);
    const watching = (async () => {
      for await (const seen of watchTask(t)) {
        if (seen.status === 'pending') break;
      }
    })();
    await vi.advanceTimersByTimeAsync(3_000);
    await watching;
    await vi.advanceTimersByTimeAsync(600_000);
    expect(task.queries).toEqual([3_000]);
    expect(t.scheduler.pending).toBe(0);
    expect(t.events.size).toBe(0);
  });

  it('yields a failed task, then throws TaskFailedError', async () => {
    const retrieve = async (): Promise<TaskResult> => ({ task_id: 't1', status: 'failed', fail_reason: 'nsfw' });
    const seen: string[] = [];
    const watching = (async () => {
      for await (const task of observeTask(target(retrieve))) seen.push(task.status);
    })().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await watching).toBeInstanceOf(TaskFailedError);
    expect(seen).toEqual(['failed']);
  });
});

describe('a shared store that never answers (a fleet whose Redis hangs)', () => {
  const never = <T>() => new Promise<T>(() => {});
  /** A fleet target whose lease, stored result and learned durations all hang. */
  const hungFleet = (retrieve: PollTarget['retrieve']): PollTarget => ({
    ...target(retrieve, {
      durationKey: 'omni-video',
      durations: new TaskDurations({ get: () => never(), add: () => {} }),
      leases: { ttlMs: 5_000, hold: () => never(), release: () => {} },
    }),
    events: { publish: () => {}, subscribe: () => () => {}, latest: () => never() },
  });
  const settledWithin = async (pending: Promise<unknown>) => {
    let settled: unknown = 'pending';
    pending.then(
      (value) => (settled = value),
      (error: unknown) => (settled = error),
    );
    await vi.advanceTimersByTimeAsync(0);
    return settled;
  };

  it('does not delay an abort; a lease that never answers is taken as held: the wait polls by itself (was: never polled)', async () => {
    const task = scriptedTask(60_000);
    const controller = new AbortController();
    const done = waitForTask(hungFleet(task.retrieve), { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(10_000);
    controller.abort(new Error('user left'));
    expect(await settledWithin(done)).toMatchObject({ message: 'user left' });
    expect(task.queries.length).toBeGreaterThan(0);
  });

  it('does not delay the deadline', async () => {
    const task = scriptedTask(60_000);
    const done = waitForTask(hungFleet(task.retrieve), { timeout: 20_000 });
    await vi.advanceTimersByTimeAsync(19_999);
    expect(await settledWithin(done)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await settledWithin(done)).toBeInstanceOf(WaitTimeoutError);
  });
});

describe('shared state that throws (a user’s Coordination)', () => {
  const boom = () => {
    throw new Error('port broke');
  };
  const cases: Array<[string, Partial<PollTarget>]> = [
    ['leases.hold throws synchronously', { leases: { ttlMs: 5_000, hold: boom, release: boom } }],
    ['leases.hold rejects', { leases: { ttlMs: 5_000, hold: () => Promise.reject(new Error('port broke')), release: () => Promise.reject(new Error('x')) } }],
    ['durations.get throws synchronously', { durationKey: 'omni-video', durations: new TaskDurations({ get: boom, add: boom }) }],
    ['journal calls throw synchronously', { journal: { record: boom, adopt: boom, release: boom, clear: boom, list: boom, pending: boom } }],
  ];
  it.each(cases)('%s: the wait polls by itself and resolves (was: a raw Error from tasks.wait)', async (_, extra) => {
    const task = scriptedTask(6_000);
    const done = waitForTask(target(task.retrieve, extra));
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(done).resolves.toMatchObject({ status: 'completed' });
  });

  it.each([
    ['events.latest throws synchronously', { latest: boom }],
    ['events.latest answers junk', { latest: () => Promise.resolve('completed' as never) }],
    ['events.subscribe throws', { subscribe: boom }],
    ['events.publish throws', { publish: boom }],
  ])('%s: the wait polls by itself and resolves (was: a raw Error from tasks.wait)', async (_, events) => {
    const task = scriptedTask(6_000);
    const base = target(task.retrieve);
    const done = waitForTask({ ...base, events: { ...new MemoryTaskEvents(), subscribe: () => () => {}, publish: () => {}, ...events } as never });
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(done).resolves.toMatchObject({ status: 'completed' });
  });
});
