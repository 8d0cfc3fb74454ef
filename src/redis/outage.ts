import type { Logger } from '../internal/logger.ts';
import { raceTimer } from '../internal/race-timer.ts';
import { errorText } from '../internal/error-text.ts';

/**
 * Redis down or slow never costs a result: every call has a short timeout, and a call that
 * fails switches the coordination to its local fallbacks (per-process dedupe, local budget,
 * local polling) until a probe finds Redis back. One warning when an outage starts, one line
 * when it ends; no call waits on a Redis that is known to be down.
 */
export class Outage {
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #down = false;
  #closed = false;
  #probing = false;
  /** Counts recoveries: a call sent before the last one that fails late is old news, not a new outage. */
  #epoch = 0;

  constructor(logger: Logger, timeoutMs: number) {
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
  }

  get down(): boolean {
    return this.#down;
  }

  /** The coordination closed: from now on the fallbacks, silently. */
  close(): void {
    this.#closed = true;
  }

  /** `op` on Redis, or `fallback` while Redis is down or when `op` fails or is slow. */
  async run<T>(op: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (this.#down || this.#closed) return fallback();
    const epoch = this.#epoch;
    try {
      return await this.#timed(op());
    } catch (error) {
      this.fail(error, epoch);
      return fallback();
    }
  }

  /** `op` on Redis with nothing to wait for: its failure starts an outage, never a rejection. */
  fire(op: () => Promise<unknown>): void {
    if (this.#down || this.#closed) return;
    const epoch = this.#epoch;
    this.#timed(op()).catch((error: unknown) => this.fail(error, epoch));
  }

  /**
   * While down: try `ping` (one at a time, within `timeoutMs`, default the command timeout);
   * when it answers, sharing resumes. `ping` may answer a note for the line that says so.
   */
  async probe(ping: () => Promise<string | void>, timeoutMs = this.#timeoutMs): Promise<void> {
    if (!this.#down || this.#probing || this.#closed) return;
    this.#probing = true;
    try {
      const note = await this.#timed(ping(), timeoutMs);
      this.#down = false;
      this.#epoch++;
      this.#logger.warn(`[omnimedia] Redis is back: sharing resumes${note ? ` (${note})` : ''}`);
    } catch {
      // Still down; the next probe tries again.
    } finally {
      this.#probing = false;
    }
  }

  /** Redis failed a call sent in `epoch` (default: now): an outage starts, with its one warning. */
  fail(error: unknown, epoch = this.#epoch): void {
    if (this.#down || this.#closed || epoch !== this.#epoch) return;
    this.#down = true;
    this.#logger.warn(
      `[omnimedia] Redis is unavailable (${errorText(error)}): waits poll locally, handlers dedupe per process, until it is back`,
    );
  }

  #timed<T>(promise: Promise<T>, timeoutMs = this.#timeoutMs): Promise<T> {
    return raceTimer(promise, timeoutMs, (): never => {
      throw new Error(`no answer within ${timeoutMs} ms`);
    });
  }
}
