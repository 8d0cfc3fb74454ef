import { vi } from 'vitest';
import { requestsInFlight as mswInFlight } from './msw.ts';

type FakeClock = { timers?: Map<unknown, { callAt: number }> };

function fakeTimers(): { callAt: number }[] {
  const clock = (globalThis.setTimeout as unknown as { clock?: FakeClock }).clock;
  return [...(clock?.timers?.values() ?? [])];
}

/** When the earliest fake timer is due, if any. */
function nextTimerAt(): number | undefined {
  let next: number | undefined;
  for (const timer of fakeTimers()) if (next === undefined || timer.callAt < next) next = timer.callAt;
  return next;
}

// Work held by holdFakeTime.
let holds = 0;

/**
 * Hold fake time still while real work outside MSW runs (a request over loopback, a body still
 * being read): `settle` waits for every hold to be released.
 */
export function holdFakeTime(): () => void {
  holds++;
  let holding = true;
  return () => {
    if (holding) holds--;
    holding = false;
  };
}

/**
 * Let real I/O (MSW answering a request, the client reading it) finish while fake time
 * stands still: until no request is in flight and the timers stay the same for a few rounds.
 */
export async function settle(): Promise<void> {
  let quiet = 0;
  let seen = '';
  // Held work (holdFakeTime: a request answered in process) may take real time on a busy
  // machine: up to 10 s. (An MSW request that never ends, one a test aborts, holds nothing.)
  const until = performance.now() + 10_000;
  for (let round = 0; (round < 2_000 || (holds > 0 && performance.now() < until)) && quiet < 8; round++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const inFlight = mswInFlight.size;
    const state = `${inFlight}:${holds}:${fakeTimers().length}:${nextTimerAt() ?? ''}`;
    quiet = inFlight === 0 && holds === 0 && state === seen ? quiet + 1 : 0;
    seen = state;
  }
}

/**
 * Advance fake time by `ms`, one timer at a time, letting real I/O settle after each, so a
 * request answered by MSW takes no fake time and query times come out exact. Fake only
 * `setTimeout`, `clearTimeout` and `Date` (setImmediate stays real).
 */
export async function advance(ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    await settle();
    const next = nextTimerAt();
    if (next === undefined || next > end) break;
    await vi.advanceTimersByTimeAsync(Math.max(0, next - Date.now()));
  }
  await vi.advanceTimersByTimeAsync(Math.max(0, end - Date.now()));
  await settle();
}

// Node's requests in flight (a file read, a DNS lookup, a socket connecting or writing), not its
// long-lived handles (servers, sockets, timers): real work that MSW's events do not show.
const REQUEST = /^(FSReq|FileHandleCloseReq|GetAddrInfoReqWrap|GetNameInfoReqWrap|QueryReqWrap|ConnectWrap|WriteWrap|ShutdownWrap)/;
const requestsInFlight = () => process.getActiveResourcesInfo().some((name) => REQUEST.test(name));

/**
 * Let a promise settle while fake time runs (up to `ms` of fake time), and rethrow its error.
 * Before each move real I/O settles (MSW answering, a body stream, the HMAC of a callback
 * token): fake time once moved on without it, ran out while a delivery was still being verified
 * on a loaded machine, and the test then waited on a fake timer nobody advanced.
 *
 * Fake time moves `step` ms at a time; with `toNextTimer`, to the next fake timer at once
 * (settles are most of the cost: a minute of fake time in 500 ms steps is 120 of them, 4 s of
 * real time at a load of 15), still `step` at a time while no timer is set or Node has a
 * request in flight (a file read). Only where every real I/O is MSW's or held
 * (holdFakeTime): a request over a loopback socket is neither, and the MCP tests' HTTP client
 * saw its one-hour request timeout fire when time jumped to it.
 */
export async function runInFakeTime<T>(promise: PromiseLike<T>, { ms = 120_000, step = 500, toNextTimer = false } = {}): Promise<T> {
  const settled = Promise.resolve(promise).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let done = false;
  void settled.then(() => (done = true));
  for (let t = 0; t < ms && !done; ) {
    await settle();
    if (done) break;
    const next = nextTimerAt();
    const by = Math.min(ms - t, !toNextTimer || next === undefined || requestsInFlight() ? step : Math.max(1, next - Date.now()));
    await vi.advanceTimersByTimeAsync(by);
    t += by;
  }
  await settle();
  if (!done) throw new Error(`still pending after ${ms} ms of fake time`);
  const result = await settled;
  if (!result.ok) throw result.error;
  return result.value;
}
