// The mock's submission rate limit (`submissionsPerSecond`): a sliding one-second window, as a
// service's rate limit behind its 429s.
import { errorResponse } from './responses.ts';

/** The submissions admitted in the last second; one more is refused until the oldest leaves. */
export class RateWindow {
  readonly #perSecond: number;
  /** When each admitted submission came, oldest first. */
  readonly #admitted: number[] = [];

  constructor(perSecond: number) {
    this.#perSecond = perSecond;
  }

  /** Admit (and count) a submission at `at`: `undefined`; else the ms until one would be admitted. */
  take(at: number): number | undefined {
    while (this.#admitted.length > 0 && (this.#admitted[0] as number) <= at - 1000) this.#admitted.shift();
    if (this.#admitted.length < this.#perSecond) {
      this.#admitted.push(at);
      return undefined;
    }
    return Math.max(1, (this.#admitted[0] as number) + 1000 - at);
  }

  /** A submission at `at` over the limit: its 429 (`Retry-After` in whole seconds, `retry-after-ms` exact); `undefined` when admitted. */
  refusal(at: number): Response | undefined {
    const waitMs = this.take(at);
    if (waitMs === undefined) return undefined;
    return errorResponse(429, 'rate_limited', `more than ${this.#perSecond} submissions in a second`, {
      headers: { 'retry-after': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(waitMs) },
    });
  }

  clear(): void {
    this.#admitted.length = 0;
  }
}
