// No retry loop of the package runs again without a delay (DESIGN 12): every retry path is
// driven with an answer that always fails (transiently, and with `Retry-After: 0` where a header
// can say so), on fake timers, and each attempt notes how many timer ticks came before it. A
// loop that retries in microtasks makes its attempts at one tick (the page's wait on a 404
// `{"status":"error"}` did 10^6 of them in 5 s and froze the tab); each path here must have at
// least one timer tick between two attempts. After `MAX_ATTEMPTS` the answer fails for good, so
// a spinning loop ends too (the test fails instead of hanging).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import type { PollBudget, PollGrant } from 'omnimedia/coordination';
import { PollScheduler } from '../../src/waiting/scheduler.ts';

const MAX_ATTEMPTS = 8;
const KEY = 'sk-retry-delays';

beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }));
afterEach(() => void vi.useRealTimers());

/**
 * Run `operation` to its end on fake timers; `state.ticks` counts every timer callback that ran
 * (the fake `setTimeout` is wrapped), so attempts note how many timers fired before them.
 */
async function drive(operation: () => Promise<unknown>, state: { ticks: number }): Promise<void> {
  const fake = globalThis.setTimeout;
  const counting = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
    fake(() => {
      state.ticks++;
      callback(...args);
    }, ms)) as typeof setTimeout;
  // Put back here, while the fake timers still run: vitest's own unstub comes after afterEach's
  // useRealTimers, and would bring the fake setTimeout back for whatever runs next.
  globalThis.setTimeout = counting;
  try {
    let settled = false;
    const done = operation().then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < 10_000 && !settled; i++) await vi.advanceTimersToNextTimerAsync();
    await done;
  } finally {
    globalThis.setTimeout = fake;
  }
}

/** Attempts noted at the tick they happened: none two at the same tick. */
function expectSpaced(attempts: number[], least = 3): void {
  expect(attempts.length).toBeGreaterThanOrEqual(least);
  const sameTick = attempts.filter((tick, i) => i > 0 && tick === attempts[i - 1]).length;
  expect({ attempts: attempts.length, sameTick }).toEqual({ attempts: attempts.length, sameTick: 0 });
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const unavailable = () => json(503, { error: { message: 'busy' } }, { 'retry-after': '0' });
const fatal = () => json(400, { error: { message: 'enough' } });
const stream = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });

/**
 * A wait's attempts: each failure it logs (its `query failed; next query in ...`) notes the tick;
 * after MAX_ATTEMPTS the wait is aborted (a loop that never fetches again ends too).
 */
function counted(state: { ticks: number }, attempts: number[]) {
  const controller = new AbortController();
  const note = (message: string) => {
    if (!/failed/.test(message)) return;
    attempts.push(state.ticks);
    if (attempts.length >= MAX_ATTEMPTS) controller.abort(new Error('enough'));
  };
  const logger = { error: () => {}, warn: note, info: note, debug: () => {} };
  return { logger, signal: controller.signal };
}

/** A fetch that fails every time (`answer`), then for good after MAX_ATTEMPTS; each attempt notes the tick. */
function failingFetch(state: { ticks: number }, attempts: number[], answer: (url: string) => Response) {
  return async (input: RequestInfo | URL): Promise<Response> => {
    attempts.push(state.ticks);
    return attempts.length > MAX_ATTEMPTS ? fatal() : answer(String(input));
  };
}

describe('no retry loop runs again without a delay', () => {
  it('a request retried under the retry policy (Retry-After: 0)', async () => {
    const state = { ticks: 0 };
    const attempts: number[] = [];
    const client = new OmniMedia({ apiKey: KEY, baseURL: 'http://service.test', maxRetries: MAX_ATTEMPTS, fetch: failingFetch(state, attempts, unavailable) });
    await drive(() => client.tasks.retrieve('task_a'), state);
    expectSpaced(attempts);
  });

  it('a wait\u2019s polls (the task query always 503 with Retry-After: 0)', async () => {
    const state = { ticks: 0 };
    const attempts: number[] = [];
    const { logger, signal } = counted(state, attempts);
    const client = new OmniMedia({ apiKey: KEY, baseURL: 'http://service.test', logger, logLevel: 'info', fetch: async () => unavailable() });
    await drive(() => client.tasks.wait('task_a', { timeout: 3_600_000, signal }), state);
    expectSpaced(attempts);
  });

  it('a page\u2019s wait whose stream always sends a transient `event: error`, then its polls', async () => {
    const state = { ticks: 0 };
    const attempts: number[] = [];
    const answer = (url: string) => (url.endsWith('/events') ? stream(`event: error\ndata: {"status":503,"error":{"message":"busy"}}\n\n`) : unavailable());
    const { logger, signal } = counted(state, attempts);
    const fetched: number[] = [];
    const client = new OmniMedia({ proxyURL: 'http://app.test/api/omnimedia', logger, logLevel: 'info', fetch: failingFetch(state, fetched, answer) });
    await drive(() => client.tasks.wait('task_a', { timeout: 3_600_000, signal }), state);
    expectSpaced(fetched);
    expectSpaced(attempts, 0);
  });

  it('a page\u2019s wait whose stream is cut after every event (the current task, resent: no news)', async () => {
    const state = { ticks: 0 };
    const attempts: number[] = [];
    const task = JSON.stringify({ task_id: 'task_a', status: 'processing', created_at: 1 });
    const answer = (url: string) => (url.endsWith('/events') ? stream(`event: task\nid: 1\ndata: ${task}\n\n`) : unavailable());
    const { logger, signal } = counted(state, attempts);
    const fetched: number[] = [];
    const urls: string[] = [];
    const client = new OmniMedia({ proxyURL: 'http://app.test/api/omnimedia', logger, logLevel: 'info', fetch: (input) => (urls.push(String(input)), failingFetch(state, fetched, answer)(input)) });
    await drive(() => client.tasks.wait('task_a', { timeout: 3_600_000, signal }), state);
    expectSpaced(fetched);
    expectSpaced(attempts, 0);
    // The first stream brought its status; the two reopens resent it (no news): then polls.
    expect(urls.slice(0, 4).map((url) => url.endsWith('/events'))).toEqual([true, true, true, false]);
  });

  it('the scheduler asking a budget that always says "not yet" (a retry time already past)', async () => {
    const state = { ticks: 0 };
    const asked: number[] = [];
    const budget: PollBudget = {
      maxPerSecond: 5,
      take: (now: number): PollGrant => {
        asked.push(state.ticks);
        return asked.length > MAX_ATTEMPTS ? { release: () => {} } : { retryAt: now - 1 };
      },
    };
    const scheduler = new PollScheduler(budget);
    await drive(async () => (await scheduler.querySlot(Date.now()))(), state);
    expectSpaced(asked);
  });
});
