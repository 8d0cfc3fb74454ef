import type { Logger } from '../internal/logger.ts';
import { callPort } from '../internal/port-call.ts';
import { errorText } from '../internal/error-text.ts';

/** What a call into Redis that failed answers, before its fallback runs. */
const FAILED: unique symbol = Symbol('failed');

/**
 * Redis down or slow never costs a result: every call goes through the port boundary
 * (`callPort`) with a short timeout, and a call that fails switches the coordination to its
 * local fallbacks (per-process dedupe, local budget, local polling) until a probe finds Redis
 * back. One warning when an outage starts, one line when it ends; no call waits on a Redis that
 * is known to be down.
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
    const answer = await this.#call(op);
    return answer === FAILED ? fallback() : answer;
  }

  /** `op` on Redis with nothing to wait for: its failure starts an outage, never a rejection. */
  fire(op: () => Promise<unknown>): void {
    if (this.#down || this.#closed) return;
    void this.#call(op);
  }

  /**
   * While down: try `ping` (one at a time, within `timeoutMs`, default the command timeout);
   * when it answers, sharing resumes. `ping` may answer a note for the line that says so.
   */
  async probe(ping: () => Promise<string | void>, timeoutMs = this.#timeoutMs): Promise<void> {
    if (!this.#down || this.#probing || this.#closed) return;
    this.#probing = true;
    // Still down when it fails: the next probe tries again.
    const answer = await callPort(ping, { timeoutMs, fallback: (): typeof FAILED => FAILED });
    this.#probing = false;
    if (answer === FAILED || this.#closed) return;
    const note = answer;
    this.#down = false;
    this.#epoch++;
    this.#logger.warn(`[omnimedia] Redis is back: sharing resumes${note ? ` (${note})` : ''}`);
  }

  /** Redis failed a call sent in `epoch` (default: now): an outage starts, with its one warning. */
  fail(error: unknown, epoch = this.#epoch): void {
    if (this.#down || this.#closed || epoch !== this.#epoch) return;
    this.#down = true;
    this.#logger.warn(
      `[omnimedia] Redis is unavailable (${errorText(error)}): waits poll locally, handlers dedupe per process, until it is back`,
    );
  }

  /** `op` within the command timeout; a failure (sent in this epoch) starts an outage. */
  async #call<T>(op: () => Promise<T>): Promise<T | typeof FAILED> {
    const epoch = this.#epoch;
    return callPort(op, {
      timeoutMs: this.#timeoutMs,
      fallback: (why): typeof FAILED => {
        this.fail(why, epoch);
        return FAILED;
      },
    });
  }
}
