// A virtual clock for simulations: replaces Date.now, setTimeout and clearTimeout so the real
// SDK code (the built package) runs through hours of waiting without sleeping. Between two
// timers the clock stands still while real microtasks and I/O callbacks settle.
import { setImmediate as realSetImmediate } from 'node:timers';

interface Timer {
  id: number;
  at: number;
  seq: number;
  fn: () => void;
}

export class VirtualClock {
  now: number;
  readonly #timers = new Map<number, Timer>();
  #seq = 0;
  #restore: (() => void) | undefined;

  constructor(start = 1_700_000_000_000) {
    this.now = start;
  }

  install(): this {
    const saved = { now: Date.now, setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
    Date.now = () => this.now;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      const id = ++this.#seq;
      this.#timers.set(id, { id, at: this.now + Math.max(0, ms ?? 0), seq: id, fn });
      // Node's timers have unref/ref/hasRef; code that calls them must not break.
      return { id, unref() { return this; }, ref() { return this; }, hasRef: () => true, [Symbol.toPrimitive]: () => id };
    }) as unknown as typeof setTimeout;
    globalThis.clearTimeout = ((handle: unknown) => {
      if (handle === undefined || handle === null) return;
      const id = typeof handle === 'number' ? handle : (handle as { id: number }).id;
      this.#timers.delete(id);
    }) as typeof clearTimeout;
    this.#restore = () => {
      Date.now = saved.now;
      globalThis.setTimeout = saved.setTimeout;
      globalThis.clearTimeout = saved.clearTimeout;
    };
    return this;
  }

  uninstall(): void {
    this.#restore?.();
    this.#restore = undefined;
  }

  /** Pending timers (ky's per-request timeouts included). */
  get timerCount(): number {
    return this.#timers.size;
  }

  async #settle(): Promise<void> {
    for (let i = 0; i < 4; i++) await new Promise<void>((resolve) => realSetImmediate(resolve));
  }

  /** Run timers in time order until `promise` settles; returns its outcome. */
  async run<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    const watched = promise.finally(() => {
      settled = true;
    });
    watched.catch(() => {});
    for (;;) {
      await this.#settle();
      if (settled) break;
      let next: Timer | undefined;
      for (const timer of this.#timers.values())
        if (!next || timer.at < next.at || (timer.at === next.at && timer.seq < next.seq)) next = timer;
      if (!next) throw new Error('virtual clock: the promise is pending and nothing is scheduled');
      this.#timers.delete(next.id);
      this.now = Math.max(this.now, next.at);
      next.fn();
    }
    return promise;
  }
}

/** A seeded PRNG (mulberry32), so that a simulation gives the same table on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
