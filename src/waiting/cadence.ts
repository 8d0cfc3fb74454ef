/**
 * waiting/: everything about waiting for a task: the poller and its cadence, the one scheduler
 * of a client's queries, learned durations, task events, the TaskPromise. Imports transport/,
 * schemas/, coordination/ (ports), options, errors.ts and internal/; never the client.
 */
import type { WaitSettings } from '../option-checks.ts';
import type { ExpectedWindow } from './durations.ts';

// The default cadence. A gap is a fixed share of the task's age, so the end of a task is noticed
// at most that share of its run late, whatever its length: 24 % keeps the worst case under the
// target of max(2 s, 25 %) for every task from 10 to 120 s (measured: 96 % of the target at
// worst), and a floor of `interval` (2.5 s) keeps a young task from being queried every few
// hundred ms. Measured with bench/suites/wait-cadence.ts (durations ±20 %): 9 queries and 0.8 s
// of lag for a 30 s task (was 10 queries and 11 s), 12.5 queries at 60 s, 22 at 300 s, 72 at
// 1,800 s. The option defaults (initialDelay, interval, maxInterval) are in options.ts.
/** Each gap is this share of the task's age (from its submission), when that is above `interval`. */
export const GAP_AGE_FRACTION = 0.24;
/** Each gap is moved by up to ±10 %, so that waits started together drift apart. */
export const GAP_JITTER = 0.1;
/**
 * In a learned window, queries are this many per window, or closer (3 % of the expected end)
 * when the window is wide, and at least 1 s apart.
 */
const QUERIES_PER_WINDOW = 5;
const WINDOW_STEP_OF_END = 0.03;
const MIN_WINDOW_STEP_MS = 1_000;

/** What the cadence reads of a wait's settings. */
export type CadenceSettings = Pick<WaitSettings, 'initialDelay' | 'interval' | 'maxInterval' | 'learn'>;

/**
 * When to send the next query. The plain schedule: the first query `initialDelay` after
 * submission, then gaps of 24 % of the task's age, at least `interval` and at most
 * `maxInterval`, with ±10 % jitter. With a learned window for this kind of task: sparse
 * queries (every `maxInterval`) until the window opens, five evenly spaced inside it (closer
 * when it is wide: at most 3 % of its end apart), then the plain schedule if the task runs late.
 */
export class Cadence {
  readonly #settings: CadenceSettings;
  readonly #random: () => number;

  constructor(settings: CadenceSettings, random: () => number = Math.random) {
    this.#settings = settings;
    this.#random = random;
  }

  /** Age (ms since submission) of the first query. */
  firstQueryAge(expected: ExpectedWindow | undefined): number {
    const { initialDelay, maxInterval } = this.#settings;
    if (!expected || !this.#settings.learn) return initialDelay;
    return Math.max(initialDelay, Math.min(expected.from, maxInterval));
  }

  /** ms from a query made at `age` (ms since submission) to the next one. */
  nextGap(age: number, expected: ExpectedWindow | undefined): number {
    const { interval, maxInterval } = this.#settings;
    const plain = Math.min(maxInterval, Math.max(interval, age * GAP_AGE_FRACTION));
    if (expected && this.#settings.learn && age < expected.to) {
      if (age < expected.from) return Math.min(expected.from - age, maxInterval);
      const dense = Math.min((expected.to - expected.from) / QUERIES_PER_WINDOW, expected.to * WINDOW_STEP_OF_END);
      return this.#jitter(Math.min(plain, Math.max(MIN_WINDOW_STEP_MS, dense)));
    }
    return this.#jitter(plain);
  }

  #jitter(gap: number): number {
    return gap * (1 + GAP_JITTER * (2 * this.#random() - 1));
  }
}
