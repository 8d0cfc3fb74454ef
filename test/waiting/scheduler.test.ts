import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_POLLS_PER_SECOND } from '../../src/options.ts';
import type { PollGrant } from '../../src/coordination/ports.ts';
import { PollScheduler } from '../../src/waiting/scheduler.ts';

const T0 = 1_000_000;

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('PollScheduler', () => {
  it('wakes each entry at its time, earliest first, with one timer for all', async () => {
    const scheduler = new PollScheduler(100);
    const t0 = Date.now();
    const woke: [string, number][] = [];
    const at = (name: string, ms: number) =>
      scheduler.querySlot(t0 + ms).then((release) => {
        woke.push([name, Date.now() - t0]);
        release();
      });
    void at('c', 3_000);
    void at('a', 1_000);
    void at('b', 2_000);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(woke).toEqual([
      ['a', 1_000],
      ['b', 2_000],
      ['c', 3_000],
    ]);
    expect(scheduler.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds 1,000 waiting entries with a single timer', async () => {
    const scheduler = new PollScheduler(5);
    const t0 = Date.now();
    for (let i = 0; i < 1_000; i++) void scheduler.querySlot(t0 + 1_000 + ((i * 7919) % 20_000));
    expect(scheduler.pending).toBe(1_000);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('never hands out more than the cap in any one-second window', async () => {
    const cap = 4;
    const scheduler = new PollScheduler(cap);
    const t0 = Date.now();
    const starts: number[] = [];
    // 40 queries all due at once: the cap spreads them over 10 seconds, in due order.
    const done = Array.from({ length: 40 }, (_, i) =>
      scheduler.querySlot(t0 + (i % 3)).then((release) => {
        starts.push(Date.now() - t0);
        release();
      }),
    );
    await vi.advanceTimersByTimeAsync(20_000);
    await Promise.all(done);
    expect(starts).toHaveLength(40);
    for (const start of starts) {
      const inWindow = starts.filter((s) => s >= start && s < start + 1_000).length;
      expect(inWindow).toBeLessThanOrEqual(cap);
    }
    // ... and is not slower than it needs to be: 4 per second.
    expect(Math.max(...starts)).toBeLessThan(10_000);
  });

  it('counts a query from its answer: the one `cap` places later starts a second after it', async () => {
    const scheduler = new PollScheduler(2);
    const t0 = Date.now();
    const starts: number[] = [];
    const releases: (() => void)[] = [];
    for (let i = 0; i < 5; i++)
      void scheduler.querySlot(t0).then((release) => {
        starts.push(Date.now() - t0);
        releases.push(release);
      });
    await vi.advanceTimersByTimeAsync(2_000);
    // Two in flight, unanswered: nothing else may start yet.
    expect(starts).toEqual([0, 0]);
    releases[0]?.();
    await vi.advanceTimersByTimeAsync(999);
    expect(starts).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toEqual([0, 0, 3_000]);
    releases[1]?.();
    releases[1]?.(); // idempotent
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts).toEqual([0, 0, 3_000, 4_000]);
    // A query never answered stops counting 5 s after its start: one hung request cannot
    // stall every wait.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(starts).toEqual([0, 0, 3_000, 4_000, 9_000]);
  });

  it('fires a plain wake-up (a deadline) on time even while queries wait on the cap', async () => {
    const scheduler = new PollScheduler(1);
    const t0 = Date.now();
    void scheduler.querySlot(t0);
    void scheduler.querySlot(t0);
    void scheduler.querySlot(t0);
    let deadlineAt: number | undefined;
    void scheduler.wakeAt(t0 + 500).then(() => (deadlineAt = Date.now() - t0));
    await vi.advanceTimersByTimeAsync(600);
    expect(deadlineAt).toBe(500);
  });

  it('removes an aborted entry at once and rejects with the reason', async () => {
    const scheduler = new PollScheduler();
    const controller = new AbortController();
    const slept = scheduler.querySlot(Date.now() + 60_000, controller.signal);
    expect(scheduler.pending).toBe(1);
    controller.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    expect(scheduler.pending).toBe(0);
    // No timer is left behind to keep a process alive.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('handles wake-ups further away than setTimeout can hold (24.8 days)', async () => {
    const scheduler = new PollScheduler();
    const t0 = Date.now();
    let woke: number | undefined;
    void scheduler.wakeAt(t0 + 40 * 86_400_000).then(() => (woke = Date.now() - t0));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(woke).toBeUndefined();
    await vi.advanceTimersByTimeAsync(40 * 86_400_000);
    expect(woke).toBe(40 * 86_400_000);
  });

  it('takes its cap from its budget, the default one unless told', () => {
    // A bad cap is refused where every option is checked (client.test.ts, "maxPollsPerSecond").
    expect(new PollScheduler().maxPerSecond).toBe(DEFAULT_MAX_POLLS_PER_SECOND);
    expect(new PollScheduler(7).maxPerSecond).toBe(7);
  });
});

describe('PollScheduler: the clock read once per arming', () => {
  it('a fractional due time with the clock moving between reads never arms a negative timeout', () => {
    vi.useRealTimers();
    // Each read of the clock is 1 ms later than the one before: a busy event loop.
    let clock = 5_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => clock++);
    const delays: number[] = [];
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return { unref() {}, ref() {}, hasRef: () => true, refresh() {}, [Symbol.toPrimitive]: () => 0 } as unknown as ReturnType<typeof setTimeout>;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation(() => {});
    const scheduler = new PollScheduler(5);
    // Due half a millisecond after the first read: positive at that read, past due at the next.
    void scheduler.querySlot(clock + 0.5);
    setTimeoutSpy.mockRestore();
    vi.restoreAllMocks();
    expect(delays.every((ms) => ms >= 0)).toBe(true);
  });
});

describe('PollScheduler with a budget that answers asynchronously (a fleet’s)', () => {
  it('asks one query at a time, serves due queries in order, and retries when told to', async () => {
    let inFlight = 0;
    let nextFree = T0;
    // One query per second, answered a tick later (as a round trip to Redis would be).
    const budget = {
      maxPerSecond: 1,
      take: async (now: number) => {
        expect(++inFlight).toBe(1);
        await Promise.resolve();
        inFlight--;
        if (now < nextFree) return { retryAt: nextFree };
        nextFree = now + 1_000;
        return { release: () => {} };
      },
    };
    const scheduler = new PollScheduler(budget);
    const woke: [string, number][] = [];
    for (const name of ['a', 'b', 'c']) void scheduler.querySlot(T0, undefined).then((release) => (woke.push([name, Date.now() - T0]), release()));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(woke).toEqual([
      ['a', 0],
      ['b', 1_000],
      ['c', 2_000],
    ]);
    expect(scheduler.pending).toBe(0);
  });

  it('tells the budget how many queries are due, so it may grant them in one round trip and hand them out at the next calls', async () => {
    const asked: number[] = [];
    let held = 0;
    const release = () => {};
    const budget = {
      maxPerSecond: 10,
      // Grants everything asked for at the first call, then answers from what it holds.
      take: (_now: number, due = 1) => {
        asked.push(due);
        if (held > 0) return (held--, { release });
        return Promise.resolve().then(() => ((held = due - 1), { release }));
      },
    };
    const scheduler = new PollScheduler(budget);
    let woke = 0;
    for (let i = 0; i < 4; i++) void scheduler.querySlot(T0, undefined).then(() => woke++);
    void scheduler.querySlot(T0 + 5_000, undefined); // not due: not counted
    await vi.advanceTimersByTimeAsync(0);
    expect(woke).toBe(4);
    expect(asked).toEqual([4, 3, 2, 1]);
  });

  it('a budget that fails lets the query go rather than stall every wait', async () => {
    const scheduler = new PollScheduler({ maxPerSecond: 1, take: () => Promise.reject(new Error('redis down')) });
    let released = false;
    const slot = scheduler.querySlot(T0);
    await vi.advanceTimersByTimeAsync(0);
    (await slot)();
    released = true;
    expect(released).toBe(true);
  });
});

describe('PollScheduler with a budget answered by I/O (a round trip to Redis)', () => {
  it('does not spin on microtasks while the budget is asked: the answer arrives and the slot is given', async () => {
    vi.useRealTimers();
    const budget = {
      maxPerSecond: 1,
      // Answered after a turn of the event loop, as a socket read would be.
      take: () => new Promise<{ release: () => void }>((resolve) => setImmediate(() => resolve({ release: () => {} }))),
    };
    const scheduler = new PollScheduler(budget);
    const outcome = await Promise.race([
      scheduler.querySlot(Date.now()).then(() => 'granted'),
      new Promise<string>((resolve) => setTimeout(() => resolve('starved'), 1_000)),
    ]);
    expect(outcome).toBe('granted');
  });
});

describe('PollScheduler with a budget whose answer is a thenable but not a native Promise', () => {
  it('waits for the thenable’s answer: "retry at" holds the query back, the grant then gives the slot', async () => {
    const answers: PollGrant[] = [{ retryAt: T0 + 1_000 }, { release: () => {} }];
    // The ports' contract is "a value or a promise"; a store written by a user may hand back any
    // thenable (a Promise of another realm, a library's).
    const thenable = (grant: PollGrant) => ({ then: (resolve: (value: PollGrant) => void) => void queueMicrotask(() => resolve(grant)) });
    const budget = { maxPerSecond: 1, take: () => thenable(answers.shift() ?? { retryAt: Number.MAX_SAFE_INTEGER }) as unknown as Promise<PollGrant> };
    const scheduler = new PollScheduler(budget);
    let wokeAt: number | undefined;
    void scheduler.querySlot(T0).then((release) => ((wokeAt = Date.now() - T0), release()));
    await vi.advanceTimersByTimeAsync(999);
    expect(wokeAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(wokeAt).toBe(1_000);
  });
});

describe('PollScheduler with a budget that misbehaves (a user’s PollBudget)', () => {
  const served = async (scheduler: PollScheduler) => {
    let woke = false;
    void scheduler.querySlot(T0).then((release) => ((woke = true), release()));
    await vi.advanceTimersByTimeAsync(0);
    return woke;
  };

  it('one whose take throws synchronously: the query goes out, no uncaught exception (was: the process died)', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const scheduler = new PollScheduler({
        maxPerSecond: 1,
        take: () => {
          throw new Error('budget broke');
        },
      });
      expect(await served(scheduler)).toBe(true);
      expect(await served(scheduler)).toBe(true);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });

  it('one whose answer never comes: the query goes out after a bounded time (was: every wait stalled)', async () => {
    const scheduler = new PollScheduler({ maxPerSecond: 1, take: () => new Promise<PollGrant>(() => {}) });
    let woke = false;
    void scheduler.querySlot(T0).then((release) => ((woke = true), release()));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(woke).toBe(true);
  });

  it('one that answers something that is not a grant: the query goes out, the slot releases', async () => {
    for (const junk of [undefined, null, 42, {}, { release: 'no' }, { retryAt: 'soon' }]) {
      const scheduler = new PollScheduler({ maxPerSecond: 1, take: () => junk as unknown as PollGrant });
      expect(await served(scheduler)).toBe(true);
    }
  });
});
