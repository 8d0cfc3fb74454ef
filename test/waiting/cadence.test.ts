import { describe, expect, it } from 'vitest';
import { Cadence } from '../../src/waiting/cadence.ts';

describe('Cadence (the default schedule)', () => {
  const settings = { initialDelay: 3_000, interval: 3_000, maxInterval: 30_000, learn: true };

  it('grows the gap ×1.5 from 3 s up to a 14 s plateau', () => {
    const cadence = new Cadence(settings, () => 0.5);
    const gaps = [3_000, 6_000, 10_500, 17_250, 27_375, 41_375].map((age) => cadence.nextGap(age, undefined));
    expect(gaps).toEqual([3_000, 4_500, 6_750, 10_125, 14_000, 14_000]);
  });

  it('lets the gap follow 4 % of the task age after the plateau, up to maxInterval', () => {
    const cadence = new Cadence(settings, () => 0.5);
    for (let i = 0; i < 6; i++) cadence.nextGap(10_000, undefined);
    expect(cadence.nextGap(300_000, undefined)).toBe(14_000);
    expect(cadence.nextGap(500_000, undefined)).toBe(20_000);
    expect(cadence.nextGap(3_600_000, undefined)).toBe(30_000);
  });

  it('moves each gap by at most ±10 %', () => {
    expect(new Cadence(settings, () => 0).nextGap(3_000, undefined)).toBe(2_700);
    expect(new Cadence(settings, () => 1).nextGap(3_000, undefined)).toBeCloseTo(3_300);
  });

  it('is a fixed interval when interval equals maxInterval', () => {
    const cadence = new Cadence({ ...settings, interval: 6_000, maxInterval: 6_000 }, () => 0.5);
    expect([3_000, 9_000, 600_000].map((age) => cadence.nextGap(age, undefined))).toEqual([6_000, 6_000, 6_000]);
  });

  it('with a learned window: sparse before it, five steps inside, plain growth after', () => {
    const cadence = new Cadence(settings, () => 0.5);
    const window = { from: 100_000, to: 110_000, samples: 9 };
    expect(cadence.firstQueryAge(window)).toBe(30_000);
    expect(cadence.nextGap(30_000, window)).toBe(30_000);
    expect(cadence.nextGap(90_000, window)).toBe(10_000);
    expect(cadence.nextGap(100_000, window)).toBe(2_000);
    expect(cadence.nextGap(108_000, window)).toBe(2_000);
    // Past the window the plain growth resumes from the dense step.
    expect(cadence.nextGap(110_000, window)).toBe(2_000);
    expect(cadence.nextGap(112_000, window)).toBe(3_000);
  });
});
