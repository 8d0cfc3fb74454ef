import { describe, expect, it } from 'vitest';
import { Cadence, GAP_AGE_FRACTION } from '../../src/waiting/cadence.ts';

describe('Cadence (the default schedule)', () => {
  const settings = { initialDelay: 3_000, interval: 2_500, maxInterval: 30_000, learn: true };

  it('gaps of `interval` while the task is young, then 24 % of its age', () => {
    const cadence = new Cadence(settings, () => 0.5);
    const gaps = [3_000, 5_500, 8_000, 10_500, 20_000, 100_000].map((age) => cadence.nextGap(age, undefined));
    expect(gaps).toEqual([2_500, 2_500, 2_500, 10_500 * GAP_AGE_FRACTION, 20_000 * GAP_AGE_FRACTION, 100_000 * GAP_AGE_FRACTION]);
  });

  it('never waits longer than maxInterval', () => {
    const cadence = new Cadence(settings, () => 0.5);
    expect(cadence.nextGap(124_000, undefined)).toBeCloseTo(29_760);
    expect(cadence.nextGap(126_000, undefined)).toBe(30_000);
    expect(cadence.nextGap(3_600_000, undefined)).toBe(30_000);
  });

  it('notices the end of any task from 10 to 120 s at most max(2 s, 25 %) of its run late (before jitter)', () => {
    const cadence = new Cadence(settings, () => 0.5);
    const queries = [settings.initialDelay];
    while ((queries.at(-1) as number) < 130_000) queries.push((queries.at(-1) as number) + cadence.nextGap(queries.at(-1) as number, undefined));
    for (let end = 10_000; end <= 120_000; end += 10) {
      const noticed = queries.find((at) => at >= end) as number;
      expect(noticed - end).toBeLessThanOrEqual(Math.max(2_000, end / 4));
    }
  });

  it('moves each gap by at most ±10 %', () => {
    expect(new Cadence(settings, () => 0).nextGap(3_000, undefined)).toBe(2_250);
    expect(new Cadence(settings, () => 1).nextGap(3_000, undefined)).toBeCloseTo(2_750);
  });

  it('is a fixed interval when interval equals maxInterval', () => {
    const cadence = new Cadence({ ...settings, interval: 6_000, maxInterval: 6_000 }, () => 0.5);
    expect([3_000, 9_000, 600_000].map((age) => cadence.nextGap(age, undefined))).toEqual([6_000, 6_000, 6_000]);
  });

  it('with a learned window: sparse before it, five steps inside, the plain schedule after', () => {
    const cadence = new Cadence(settings, () => 0.5);
    const window = { from: 100_000, to: 110_000, samples: 9 };
    expect(cadence.firstQueryAge(window)).toBe(30_000);
    expect(cadence.nextGap(30_000, window)).toBe(30_000);
    expect(cadence.nextGap(90_000, window)).toBe(10_000);
    expect(cadence.nextGap(100_000, window)).toBe(2_000);
    expect(cadence.nextGap(108_000, window)).toBe(2_000);
    // Past the window the plain schedule resumes: 24 % of the age.
    expect(cadence.nextGap(110_000, window)).toBe(110_000 * GAP_AGE_FRACTION);
  });

  it('without a window, or with learning off, the first query comes at initialDelay and the window is ignored', () => {
    const window = { from: 100_000, to: 110_000, samples: 9 };
    expect(new Cadence(settings, () => 0.5).firstQueryAge(undefined)).toBe(3_000);
    const unlearned = new Cadence({ ...settings, learn: false }, () => 0.5);
    expect(unlearned.firstQueryAge(window)).toBe(3_000);
    expect(unlearned.nextGap(90_000, window)).toBe(90_000 * GAP_AGE_FRACTION);
  });

  it('a window that opens before initialDelay: the first query still waits initialDelay; inside a window no gap is longer than the plain one', () => {
    const cadence = new Cadence(settings, () => 0.5);
    const window = { from: 1_000, to: 20_000, samples: 9 };
    expect(cadence.firstQueryAge(window)).toBe(3_000);
    expect(cadence.firstQueryAge({ from: 12_000, to: 20_000, samples: 9 })).toBe(12_000);
    // A fifth of 190 s is 38 s, 3 % of its end 6 s: the plain schedule's 2.5 s is shorter.
    expect(cadence.nextGap(10_000, { from: 10_000, to: 200_000, samples: 9 })).toBe(2_500);
  });

  it('a wide window: queries at most 3 % of its end apart; a narrow one: at least 1 s apart', () => {
    const cadence = new Cadence(settings, () => 0.5);
    // A fifth of 100 s is 20 s; 3 % of the 200 s end is 6 s.
    expect(cadence.nextGap(100_000, { from: 100_000, to: 200_000, samples: 9 })).toBe(6_000);
    // A fifth of 2 s is 0.4 s: raised to 1 s.
    expect(cadence.nextGap(20_000, { from: 20_000, to: 22_000, samples: 9 })).toBe(1_000);
  });
});
