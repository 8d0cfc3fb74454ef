// The adaptive submission limit: 4 at first, +1 per round of acceptances; a refusal sets a rate
// (what was accepted over the last seconds), submissions paced to it, the number in flight
// following rate × answer time; a fixed number stays fixed. On a clock of the test's own.
import { describe, expect, it } from 'vitest';
import { AUTO_MAX, AUTO_START, SubmissionLimit, type Pacing } from '../../src/batch/concurrency.ts';

/** A clock moved by hand; a pacing pause moves it (and records the pause). */
function manualClock(): Pacing & { at: number; pauses: number[] } {
  const clock = {
    at: 0,
    pauses: [] as number[],
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.pauses.push(ms);
      clock.at += ms;
    },
  };
  return clock;
}

async function round(limit: SubmissionLimit, outcome: 'accepted' | 'refused', count = limit.limit): Promise<void> {
  const slots = await Promise.all(Array.from({ length: count }, () => limit.acquire()));
  for (const slot of slots) slot.sent();
  for (const slot of slots) {
    slot[outcome]();
    slot.release();
  }
}

/** One submission sent and answered `ms` later on `clock`. */
async function answered(limit: SubmissionLimit, clock: { at: number }, ms: number, outcome: 'accepted' | 'refused'): Promise<void> {
  const slot = await limit.acquire();
  slot.sent();
  clock.at += ms;
  slot[outcome]();
  slot.release();
}

describe('SubmissionLimit', () => {
  it("'auto' starts at 4 and grows by one per accepted round", async () => {
    const limit = new SubmissionLimit('auto');
    expect(limit.limit).toBe(AUTO_START);
    await round(limit, 'accepted');
    expect(limit.limit).toBe(5);
    await round(limit, 'accepted');
    expect(limit.limit).toBe(6);
  });

  it('a refusal sets the rate to what was accepted over the last seconds; in flight follows rate x answer time, and submissions are paced to it', async () => {
    const clock = manualClock();
    const limit = new SubmissionLimit('auto', clock);
    // 4 s of a service answering in 400 ms and accepting 15 a second: 60 acceptances.
    for (let i = 0; i < 60; i++) {
      await answered(limit, clock, 400, 'accepted');
      clock.at -= 400 - 1000 / 15;
    }
    expect(limit.rate).toBeUndefined();
    await answered(limit, clock, 400, 'refused');
    // About 15 a second (the last 3 s of sending); 15 x 0.4 s x 1.5 + 1 = 10 in flight, not half of 8.
    expect(limit.rate).toBeGreaterThan(13);
    expect(limit.rate).toBeLessThan(17);
    expect(limit.limit).toBeGreaterThanOrEqual(9);
    expect(limit.limit).toBeLessThanOrEqual(11);
    // Paced: 30 acquisitions take about 2 s of the clock.
    const from = clock.at;
    for (let i = 0; i < 30; i++) (await limit.acquire()).release();
    expect(clock.at - from).toBeGreaterThan(1_700);
    expect(clock.at - from).toBeLessThan(2_300);
  });

  it('a refusal before anything was accepted keeps the pace it had; never below one a second', async () => {
    const clock = manualClock();
    const limit = new SubmissionLimit('auto', clock);
    await answered(limit, clock, 500, 'refused');
    expect(limit.rate).toBeGreaterThanOrEqual(1);
  });

  it('holds submissions beyond the limit until a slot is released, and an abort ends the wait', async () => {
    const limit = new SubmissionLimit(2);
    const [a] = await Promise.all([limit.acquire(), limit.acquire()]);
    let third = false;
    const waiting = limit.acquire().then((slot) => ((third = true), slot));
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(false);
    a?.release();
    a?.release(); // twice is once
    const slot = await waiting;
    expect(limit.inFlight).toBe(2);
    slot.accepted();
    expect(limit.limit).toBe(2); // fixed
    const controller = new AbortController();
    const blocked = limit.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(blocked).rejects.toThrow('stop');
  });

  it(`stops growing at ${AUTO_MAX}`, async () => {
    const limit = new SubmissionLimit('auto');
    for (let i = 0; i < 300; i++) await round(limit, 'accepted');
    expect(limit.limit).toBe(AUTO_MAX);
  });
});
