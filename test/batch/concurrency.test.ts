// The adaptive submission limit: 4 at first, +1 per round of acceptances, halved once per round
// of refusals, never below 1; a fixed number stays fixed.
import { describe, expect, it } from 'vitest';
import { AUTO_MAX, AUTO_START, SubmissionLimit } from '../../src/batch/concurrency.ts';

async function round(limit: SubmissionLimit, outcome: 'accepted' | 'refused', count = limit.limit): Promise<void> {
  const slots = await Promise.all(Array.from({ length: count }, () => limit.acquire()));
  for (const slot of slots) slot.sent();
  for (const slot of slots) {
    slot[outcome]();
    slot.release();
  }
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

  it('a round of refusals halves it once, not once per refusal; never below 1', async () => {
    const limit = new SubmissionLimit('auto');
    for (let i = 0; i < 4; i++) await round(limit, 'accepted');
    expect(limit.limit).toBe(8);
    await round(limit, 'refused');
    expect(limit.limit).toBe(4);
    for (let i = 0; i < 5; i++) await round(limit, 'refused', 1);
    expect(limit.limit).toBe(1);
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
