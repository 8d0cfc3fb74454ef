import { vi } from 'vitest';

type FakeClock = { timers?: Map<unknown, { callAt: number }> };

/** When the earliest fake timer is due, if any. */
function nextTimerAt(): number | undefined {
  const clock = (globalThis.setTimeout as unknown as { clock?: FakeClock }).clock;
  let next: number | undefined;
  for (const timer of clock?.timers?.values() ?? []) if (next === undefined || timer.callAt < next) next = timer.callAt;
  return next;
}

/** Let real I/O (MSW answering a request) finish while fake time stands still. */
export async function settle(rounds = 25): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
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
