// The mock's options for load: `submissionsPerSecond` (a sliding one-second window of admitted
// submissions, 429 beyond it with Retry-After and retry-after-ms) and duration ranges.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMockService } from 'omnimedia/testing';

beforeEach(() => void vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: 1_000_000 }));
afterEach(() => void vi.useRealTimers());

const submit = (mock: ReturnType<typeof createMockService>) =>
  mock.fetch(`${mock.baseURL}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'omni-image', prompt: 'a fox' }),
  });

describe('createMockService({ submissionsPerSecond })', () => {
  it('admits that many submissions in any second; one more gets 429 saying when one would be admitted', async () => {
    const mock = createMockService({ submissionsPerSecond: 3 });
    expect((await Promise.all([submit(mock), submit(mock), submit(mock)])).map((r) => r.status)).toEqual([200, 200, 200]);
    vi.advanceTimersByTime(400);
    const refused = await submit(mock);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after-ms')).toBe('600');
    expect(refused.headers.get('retry-after')).toBe('1');
    vi.advanceTimersByTime(599);
    expect((await submit(mock)).status).toBe(429);
    vi.advanceTimersByTime(1);
    expect((await submit(mock)).status).toBe(200);
    // Task queries are not counted.
    expect(mock.tasks()).toHaveLength(4);
    mock.close();
  });

  it('a duration given as [min, max] is drawn for each task within it', async () => {
    const mock = createMockService({ durations: { pending: 0, image: [2_000, 10_000] } });
    for (let i = 0; i < 20; i++) await submit(mock);
    const ends: number[] = [];
    for (let t = 0; t <= 10_000; t += 250) {
      const done = mock.tasks().filter((task) => task.status === 'completed').length;
      ends.push(done);
      vi.advanceTimersByTime(250);
    }
    expect(ends[0]).toBe(0);
    expect(ends[Math.floor(1_999 / 250)]).toBe(0); // none before 2 s
    expect(ends.at(-1)).toBe(20); // all by 10 s
    expect(new Set(ends).size).toBeGreaterThan(3); // spread out, not all at once
    mock.close();
  });
});
