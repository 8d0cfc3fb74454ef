/**
 * How fast a batch submits: a fixed number in flight, or adaptive (`'auto'`), paced by **rate**
 * (DESIGN 14). `'auto'` starts at 4 in flight, one more per round of accepted submissions (a
 * round: as many acceptances in a row as the limit). The first 429 or 503 sets a rate: what the
 * service accepted over the last few seconds of sending (a refusal before anything was accepted
 * keeps the current pace; never below one a second). From then on submissions leave at that
 * rate, which grows by a tenth per second of acceptances, each refusal setting it again to
 * what was accepted; the number in flight follows rate × the service's answer time (a service
 * that takes 400 ms to accept needs 6 in flight for 15 a second: halving 7 to 3, as this did
 * before, cost half the throughput). A submission holds its slot from its uploads to its answer,
 * and through the `Retry-After` of a refusal; waits on tasks hold none.
 */
import { raceAbort } from '../internal/race-abort.ts';
import { sleep } from '../internal/sleep.ts';

/** Where the adaptive limit starts. */
export const AUTO_START = 4;
/** Where the adaptive limit stops growing: far above any service's useful parallel submissions. */
export const AUTO_MAX = 256;
/** The window a refusal measures the accepted rate over, in ms: a few seconds of sending. */
export const RATE_WINDOW_MS = 3_000;
/** In flight = rate × answer time × this, plus one: room for answers slower than the average. */
const IN_FLIGHT_MARGIN = 1.5;

/** What a slot holder reports: its submission was accepted, or refused for now (429/503). */
export interface Slot {
  /** Its submission is about to be sent (again): its answer time counts from here. */
  sent(): void;
  accepted(): void;
  refused(): void;
  release(): void;
}

/** The clock and the pause the limit paces with (tests give their own). */
export interface Pacing {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const REAL_TIME: Pacing = { now: () => Date.now(), sleep: (ms, signal) => sleep(ms, signal) };

export class SubmissionLimit {
  #limit: number;
  readonly #adaptive: boolean;
  readonly #pacing: Pacing;
  #inFlight = 0;
  /** Acceptances since the last change of the limit (before a rate is set). */
  #streak = 0;
  readonly #waiters: (() => void)[] = [];
  /** Submissions a second, once a refusal set it. */
  #rate: number | undefined;
  /** When each recent acceptance came: the rate a refusal measures. */
  #accepts: number[] = [];
  /** When the first acceptance came: a window shorter than `RATE_WINDOW_MS` is measured over what there is. */
  #firstAccept: number | undefined;
  /** The service's answer time, in ms (a moving average). */
  #answerMs: number | undefined;
  /** When the next submission may leave, paced by the rate. */
  #nextAt = 0;

  constructor(concurrency: number | 'auto', pacing: Pacing = REAL_TIME) {
    this.#adaptive = concurrency === 'auto';
    this.#limit = concurrency === 'auto' ? AUTO_START : concurrency;
    this.#pacing = pacing;
  }

  get limit(): number {
    return this.#limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Submissions a second it paces to, once a refusal set a rate. */
  get rate(): number | undefined {
    return this.#rate;
  }

  /** A slot once one is free and the rate allows (the abort's reason if the signal ends the wait first). */
  async acquire(signal?: AbortSignal): Promise<Slot> {
    while (this.#inFlight >= this.#limit) {
      let wake!: () => void;
      const freed = new Promise<void>((resolve) => (wake = resolve));
      this.#waiters.push(wake);
      // A wait for a slot ends at once when the batch is aborted.
      await (signal ? raceAbort(freed, signal) : freed);
    }
    this.#inFlight++;
    try {
      await this.#pace(signal);
    } catch (error) {
      this.#free();
      throw error;
    }
    let sentAt = this.#pacing.now();
    let released = false;
    return {
      sent: () => void (sentAt = this.#pacing.now()),
      accepted: () => this.#accepted(this.#pacing.now() - sentAt),
      refused: () => this.#refused(this.#pacing.now() - sentAt),
      release: () => {
        if (released) return;
        released = true;
        this.#free();
      },
    };
  }

  /** With a rate: wait for this submission's turn. */
  async #pace(signal: AbortSignal | undefined): Promise<void> {
    if (this.#rate === undefined) return;
    const now = this.#pacing.now();
    const at = Math.max(now, this.#nextAt);
    this.#nextAt = at + 1000 / this.#rate;
    if (at > now) await this.#pacing.sleep(at - now, signal);
  }

  #answered(ms: number): void {
    this.#answerMs = this.#answerMs === undefined ? ms : this.#answerMs * 0.8 + ms * 0.2;
  }

  #accepted(answerMs: number): void {
    if (!this.#adaptive) return;
    const now = this.#pacing.now();
    this.#answered(answerMs);
    this.#firstAccept ??= now;
    this.#accepts.push(now);
    while ((this.#accepts[0] as number) < now - RATE_WINDOW_MS) this.#accepts.shift();
    if (this.#rate !== undefined) {
      // A tenth more per second of acceptances: a rate measured low (a client slowed down, a
      // refusal early on) is back at 15/s within a few seconds; overshooting costs one 429.
      this.#rate += 0.1;
      this.#follow();
    } else if (++this.#streak >= this.#limit && this.#limit < AUTO_MAX) {
      this.#limit++;
      this.#streak = 0;
      this.#wake();
    }
  }

  #refused(answerMs: number): void {
    if (!this.#adaptive) return;
    const now = this.#pacing.now();
    this.#answered(answerMs);
    this.#streak = 0;
    const since = Math.max(now - RATE_WINDOW_MS, this.#firstAccept ?? now);
    const recent = this.#accepts.filter((at) => at >= since).length;
    // What was accepted over the last seconds of sending; a refusal before any acceptance keeps the pace.
    if (recent > 0 && now > since) this.#rate = Math.max(1, (recent * 1000) / (now - since));
    else this.#rate ??= Math.max(1, (this.#inFlight * 1000) / Math.max(this.#answerMs ?? 1000, 1));
    this.#follow();
  }

  /** The number in flight follows rate × answer time. */
  #follow(): void {
    if (this.#rate === undefined) return;
    const needed = Math.ceil((this.#rate * (this.#answerMs ?? 1000) * IN_FLIGHT_MARGIN) / 1000) + 1;
    const limit = Math.min(AUTO_MAX, Math.max(1, needed));
    if (limit > this.#limit) this.#wake();
    this.#limit = limit;
  }

  #free(): void {
    this.#inFlight--;
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
