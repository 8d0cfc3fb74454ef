/**
 * waiting/: everything about waiting for a task: the poller and its cadence, the one scheduler
 * of a client's queries, learned durations, task events, the TaskPromise. Imports transport/,
 * schemas/, coordination/ (ports), options, errors.ts and internal/; never the client.
 */
import type { WaitSettings } from '../option-checks.ts';
import type { ExpectedWindow } from './durations.ts';

// The default cadence. Chosen with bench/suites/wait-cadence.ts against fixed 3 s and 6 s
// polling: few queries for long tasks, a short lag for short ones (see the README). The
// option defaults (initialDelay, interval, maxInterval) are in options.ts.
/** Each gap between queries is `INTERVAL_GROWTH` times the one before. */
export const INTERVAL_GROWTH = 1.5;
/** The gap stops growing here during a task's first minutes... */
export const GAP_PLATEAU_MS = 14_000;
/** ...then stays under this fraction of the task's age (4 %)... */
export const GAP_AGE_FRACTION = 1 / 25;
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
 * submission, then gaps of `interval` growing ×1.5 per query, each capped at
 * max(14 s, 4 % of the task's age) and at `maxInterval`, with ±10 % jitter. With a learned
 * window for this kind of task: sparse queries (every `maxInterval`) until the window opens,
 * five evenly spaced inside it (closer when it is wide: at most 3 % of its end apart), then
 * the plain growth again if the task runs late.
 */
export class Cadence {
  readonly #settings: CadenceSettings;
  readonly #random: () => number;
  #gap: number;

  constructor(settings: CadenceSettings, random: () => number = Math.random) {
    this.#settings = settings;
    this.#random = random;
    this.#gap = settings.interval;
  }

  /** Age (ms since submission) of the first query. */
  firstQueryAge(expected: ExpectedWindow | undefined): number {
    const { initialDelay, maxInterval } = this.#settings;
    if (!expected || !this.#settings.learn) return initialDelay;
    return Math.max(initialDelay, Math.min(expected.from, maxInterval));
  }

  /** ms from a query made at `age` (ms since submission) to the next one. */
  nextGap(age: number, expected: ExpectedWindow | undefined): number {
    const { maxInterval } = this.#settings;
    const cap = Math.min(maxInterval, Math.max(GAP_PLATEAU_MS, this.#settings.interval, age * GAP_AGE_FRACTION));
    if (expected && this.#settings.learn && age < expected.to) {
      const dense = Math.min((expected.to - expected.from) / QUERIES_PER_WINDOW, expected.to * WINDOW_STEP_OF_END);
      const step = Math.min(cap, Math.max(MIN_WINDOW_STEP_MS, dense));
      // If the task runs past the window, the plain growth resumes from the dense step.
      this.#gap = step;
      if (age < expected.from) return Math.min(expected.from - age, maxInterval);
      return this.#jitter(step);
    }
    const gap = Math.min(this.#gap, cap);
    this.#gap = Math.min(this.#gap * INTERVAL_GROWTH, maxInterval);
    return this.#jitter(gap);
  }

  #jitter(gap: number): number {
    return gap * (1 + GAP_JITTER * (2 * this.#random() - 1));
  }
}
