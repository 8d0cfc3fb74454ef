/**
 * The one reading of the service's time values (`created_at`, `completed_at`, `expires_at`),
 * used by the answer reader, the poller, the upload cache and the mock alike (the CLI prints
 * the SDK's results, whose times it has read)
 * (docs/spec-decisions.md, "Times: one reading"). The spec's samples are epoch seconds, but a service may well
 * send JavaScript's `Date.now()` (ms), a database's µs or ns, or an RFC 3339 date-time.
 *
 * A number's unit is read from its size: below 10^11 it is seconds (10^11 s is the year 5138),
 * below 10^14 ms, below 10^17 µs, below 10^20 ns (each range starts in 1973 and ends in 5138,
 * so no date between is ambiguous); past 10^20 it is no time. A string is a time when it is an
 * unsigned decimal (read as that number) or a date-time with its offset (any number of
 * fraction digits); without an offset it names no instant and is no time.
 */

// [the largest size of a unit, its units per second]: seconds, ms, µs, ns.
const UNITS: readonly (readonly [number, number])[] = [
  [1e11, 1],
  [1e14, 1e3],
  [1e17, 1e6],
  [1e20, 1e9],
];
const DECIMAL = /^\d+(\.\d+)?$/;
const INSTANT = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i;

/** `value` as [a number, its units per second], or `undefined` when it is no time. */
function unitOf(value: unknown): readonly [number, number] | undefined {
  let number = value;
  if (typeof value === 'string') {
    if (DECIMAL.test(value)) number = Number(value);
    else {
      const match = INSTANT.exec(value);
      if (!match) return undefined;
      const whole = Date.parse(`${match[1]}${match[3]}`);
      // The fraction added as digits: Date.parse keeps ms only, and µs survive in a double.
      return Number.isFinite(whole) ? [whole + Number(`0.${match[2] ?? '0'}`) * 1000, 1e3] : undefined;
    }
  }
  if (typeof number !== 'number' || !Number.isFinite(number)) return undefined;
  const unit = UNITS.find(([largest]) => Math.abs(number) < largest);
  return unit ? [number, unit[1]] : undefined;
}

/**
 * A time value of the service in ms since the epoch, or `undefined` when it is no time.
 *
 * @example
 * ```ts
 * epochMs(1_800_000_000);          // 1_800_000_000_000 (seconds)
 * epochMs(1_800_000_000_000);      // 1_800_000_000_000 (ms)
 * epochMs('2027-01-15T08:00:00Z'); // 1_800_000_000_000
 * epochMs(-1e21);                  // undefined
 * ```
 */
export function epochMs(value: unknown): number | undefined {
  const read = unitOf(value);
  if (!read) return undefined;
  const [number, perSecond] = read;
  return perSecond === 1 ? number * 1000 : number / (perSecond / 1e3);
}

/**
 * A time value of the service in epoch seconds, the unit of the SDK's result types, or
 * `undefined` when it is no time. Seconds come back exactly as sent.
 */
export function epochSeconds(value: unknown): number | undefined {
  const read = unitOf(value);
  return read && read[0] / read[1];
}

/**
 * A time as the service writes it (the spec's samples): whole epoch seconds, from ms since the
 * epoch. What the mock writes, so that what it writes and what the SDK reads are one rule.
 */
export function serviceTime(ms: number): number {
  return Math.floor(ms / 1000);
}
