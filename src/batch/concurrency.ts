/**
 * How many submissions a batch has in flight: a fixed number, or adaptive (`'auto'`): 4 at
 * first, one more per round of accepted submissions (a round: as many acceptances in a row as
 * the limit), halved on a 429 or 503, at most once per round, never below 1. A submission holds
 * its slot from its uploads to its answer, and through the `Retry-After` of a refusal, so that
 * a limit of 1 really is one submission at a time while the service says it is full; waits on
 * tasks hold none.
 */
import { raceAbort } from '../internal/race-abort.ts';

/** Where the adaptive limit starts. */
export const AUTO_START = 4;
/** Where the adaptive limit stops growing: far above any service's useful parallel submissions. */
export const AUTO_MAX = 256;

/** What a slot holder reports: its submission was accepted, or refused for now (429/503). */
export interface Slot {
  /** Its submission is about to be sent (again): a refusal answers the limit of this moment. */
  sent(): void;
  accepted(): void;
  refused(): void;
  release(): void;
}

export class SubmissionLimit {
  #limit: number;
  readonly #adaptive: boolean;
  #inFlight = 0;
  /** Acceptances since the last change of the limit. */
  #streak = 0;
  /** Bumped at each halving: a refusal of a submission sent before it does not halve again. */
  #round = 0;
  readonly #waiters: (() => void)[] = [];

  constructor(concurrency: number | 'auto') {
    this.#adaptive = concurrency === 'auto';
    this.#limit = concurrency === 'auto' ? AUTO_START : concurrency;
  }

  get limit(): number {
    return this.#limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** A slot once one is free (the abort's reason if the signal ends the wait first). */
  async acquire(signal?: AbortSignal): Promise<Slot> {
    while (this.#inFlight >= this.#limit) {
      let wake!: () => void;
      const freed = new Promise<void>((resolve) => (wake = resolve));
      this.#waiters.push(wake);
      // A wait for a slot ends at once when the batch is aborted.
      await (signal ? raceAbort(freed, signal) : freed);
    }
    this.#inFlight++;
    let round = this.#round;
    let released = false;
    return {
      sent: () => {
        round = this.#round;
      },
      accepted: () => {
        if (!this.#adaptive) return;
        if (++this.#streak >= this.#limit && this.#limit < AUTO_MAX) {
          this.#limit++;
          this.#streak = 0;
          this.#wake();
        }
      },
      refused: () => {
        if (!this.#adaptive || round !== this.#round) return;
        this.#round++;
        this.#streak = 0;
        this.#limit = Math.max(1, Math.floor(this.#limit / 2));
      },
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight--;
        this.#wake();
      },
    };
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
