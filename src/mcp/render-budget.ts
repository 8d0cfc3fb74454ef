const MiB = 1024 * 1024;

/** An image embedded in a result is at most this size: a bigger one is linked only. */
export const MAX_EMBEDDED_IMAGE_BYTES = MiB;
/** Images embedded in one answer at most (the most a call may ask for: `n` up to 4); the rest are links. */
export const MAX_EMBEDDED_IMAGES = 4;
/** Bytes of images embedded in one answer at most (base64 makes a third more): one JSON-RPC message stays a few MiB. */
export const MAX_EMBEDDED_BYTES = 4 * MiB;

/** Why the budget's signal aborted: its time ran out. */
export class OutOfTime extends Error {
  override readonly name = 'OutOfTime';
}

/**
 * What rendering one result may spend: time (it ends by `deadline`: what is not rendered by
 * then is a link), and images (at most 4 embedded, 1 MiB each, 4 MiB in all). Every download
 * it makes runs under `signal`: the call's own (a cancel stops them) or the deadline's.
 */
export class RenderBudget {
  readonly signal: AbortSignal;
  /** The call's answer time, in ms (for the message saying why something is only linked). */
  readonly waitMs: number;
  readonly #timeout = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  #images = 0;
  #bytes = 0;

  constructor(signal: AbortSignal, deadline: number, waitMs: number) {
    this.waitMs = waitMs;
    this.signal = AbortSignal.any([signal, this.#timeout.signal]);
    this.#timer = setTimeout(() => this.#timeout.abort(new OutOfTime(`the call had to answer within its ${Math.round(waitMs / 1000)} s (waitMs)`)), Math.max(0, deadline - Date.now()));
  }

  /** Whether the time ran out. */
  get outOfTime(): boolean {
    return this.#timeout.signal.aborted;
  }

  /** Why the time ran out, for a note. */
  get why(): string {
    return (this.#timeout.signal.reason as OutOfTime | undefined)?.message ?? '';
  }

  /** The bytes one more embedded image may have: 0 when no more may be embedded. */
  imageRoom(): number {
    return this.#images >= MAX_EMBEDDED_IMAGES ? 0 : Math.min(MAX_EMBEDDED_IMAGE_BYTES, MAX_EMBEDDED_BYTES - this.#bytes);
  }

  /** An image of `bytes` embedded. */
  spend(bytes: number): void {
    this.#images++;
    this.#bytes += bytes;
  }

  /** Rendering is over: the timer goes. */
  end(): void {
    clearTimeout(this.#timer);
  }
}
