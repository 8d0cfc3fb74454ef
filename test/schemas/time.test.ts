import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { epochMs, epochSeconds, serviceTime } from '../../src/schemas/time.ts';

// The one reading of the service's time values: seconds, ms, µs or ns by size, a decimal
// string as its number, an RFC 3339 date-time with its offset; anything else is no time.
const S = 1_800_000_000; // 2027-01-15T08:00:00Z
const ISO = '2027-01-15T08:00:00.000Z';

describe('epochMs and epochSeconds', () => {
  it.each([
    ['seconds', S],
    ['ms', S * 1e3],
    ['µs', S * 1e6],
    ['ns', S * 1e9],
    ['a decimal string of seconds', String(S)],
    ['a decimal string of ms', String(S * 1e3)],
    ['a date-time in UTC', '2027-01-15T08:00:00Z'],
    ['a date-time with an offset', '2027-01-15T09:00:00+01:00'],
    ['a lower-case date-time', '2027-01-15t08:00:00z'],
  ])('%s: the same instant', (_, value) => {
    expect(new Date(epochMs(value) as number).toISOString()).toBe(ISO);
    expect(epochSeconds(value)).toBeCloseTo(S, 6);
  });

  it('seconds come back exactly as sent, fractions included', () => {
    for (const value of [S, S + 0.5, 0, 1, -1, 99_999_999_999]) expect(epochSeconds(value)).toBe(value);
    expect(epochMs(S + 0.5)).toBe(S * 1000 + 500);
  });

  it('a fraction of any length is kept (Date.parse would keep ms only)', () => {
    expect(epochSeconds('2025-03-04T05:06:07.5Z')).toBe(Date.parse('2025-03-04T05:06:07Z') / 1000 + 0.5);
    expect(epochMs('2025-03-04T05:06:07.123456Z')).toBeCloseTo(Date.parse('2025-03-04T05:06:07.123Z') + 0.456, 3);
    expect(epochSeconds(1_741_064_767_123_456)).toBeCloseTo(1_741_064_767.123456, 5);
  });

  it.each([
    ['a date-time without an offset (which instant is unknown)', '2025-03-04T05:06:07'],
    ['a date without a time', '2025-03-04'],
    ['a date-time in words', 'March 4, 2025'],
    ['a negative decimal string', '-5'],
    ['a number past 10^20', 1e20],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
    ['an impossible date', '2025-13-45T99:00:00Z'],
    ['a boolean', true],
    ['null', null],
    ['an object', { seconds: S }],
  ])('%s is no time', (_, value) => {
    expect(epochMs(value)).toBeUndefined();
    expect(epochSeconds(value)).toBeUndefined();
  });

  it('every number it reads is a date JavaScript can show (toISOString never throws)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.bigInt({ min: 0n, max: 10n ** 21n }).map(Number)), (value) => {
        const ms = epochMs(value);
        if (ms !== undefined) expect(() => new Date(ms).toISOString()).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('each unit starts where the one before ends: no number is read two ways', () => {
    expect(epochMs(99_999_999_999)).toBe(99_999_999_999_000); // seconds: year 5138
    expect(epochMs(100_000_000_000)).toBe(100_000_000_000); // ms: 1973
    expect(epochMs(1e14)).toBe(1e11); // µs
    expect(epochMs(1e17)).toBe(1e11); // ns
  });
});

describe('serviceTime', () => {
  it('writes whole epoch seconds, which epochMs reads back to the second', () => {
    expect(serviceTime(S * 1000 + 999)).toBe(S);
    expect(epochMs(serviceTime(S * 1000 + 999))).toBe(S * 1000);
  });
});
