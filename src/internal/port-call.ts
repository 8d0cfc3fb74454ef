/**
 * The one way into a port: anything the SDK calls but does not own (a user's `uploadCache`
 * store, a custom `Coordination`'s journal, leases, events, budget and dedupe store, the Redis
 * client, the proxy's `authorize`, `policy`, `onSubmitted` and rate-limit store).
 *
 * Contract: a call through here answers within `timeoutMs`, or at once when the caller's
 * `signal` aborts, whatever the port does: hang, throw synchronously, reject, hand back an odd
 * thenable (one whose `then` throws, calls back twice or never), or answer something that is
 * not an answer (`accept`). It never throws what the port threw: a failure is handed to
 * `fallback`, which answers for the port as for an outage (a local store, "unknown", a
 * refusal). Why: "a port may hang" was kept by the poller and forgotten by the upload cache
 * and the journal (issue 30); one boundary means the next feature cannot forget it.
 *
 * `onTask` (a callback handler's) is not a port: it is the user's own work, which the delivery
 * must see end (the service is told it was handled only then), however long it takes.
 */
import { errorText } from './error-text.ts';
import { isThenable } from './thenable.ts';

/**
 * How long a store may take to answer, in ms, when the caller gives no shorter time: a store
 * in good health answers within a round trip or two (Redis's own command timeout is 500 ms).
 */
export const PORT_TIMEOUT_MS = 2_000;

/** A port that did not answer within its time. */
export class PortTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** How one call into a port is bounded, and what it answers when the port fails. */
export interface PortCall<T, F> {
  /** ms the port may take; past it the call answers `fallback(new PortTimeout(ms))`. */
  timeoutMs: number;
  /** Ends the call at once when it aborts (see `abort`). */
  signal?: AbortSignal | undefined;
  /** On an abort: `'reject'` with the signal's reason (the caller gave up: the default), or answer `fallback(reason)`. */
  abort?: 'reject' | 'fallback';
  /** The answer when the port throws, rejects, is late, or answers what `accept` refuses; may throw (a refusal). */
  fallback: (why: unknown) => F;
  /** Whether what the port answered is an answer (a shape check); default: anything is. */
  accept?: (answer: unknown) => boolean;
  /** The port answered (`accept` passed). */
  answered?: () => void;
  /** A failure that came after the call had already answered (late, or aborted). */
  late?: (error: unknown) => void;
}

/**
 * Call a port within the bounds of `options`: the port's answer when it gives one in time, else
 * `fallback`'s. A port that answers synchronously is answered synchronously (no promise, no
 * timer: the in-memory stores cost nothing more); any other answer is a promise.
 *
 * @example
 * ```ts
 * const record = await callPort(() => store.get(key), { timeoutMs: PORT_TIMEOUT_MS, signal, fallback: () => undefined });
 * ```
 */
export function callPort<T, F>(call: () => T | PromiseLike<T>, options: PortCall<T, F>): T | F | Promise<T | F> {
  const { signal } = options;
  if (signal?.aborted) return options.abort === 'fallback' ? options.fallback(signal.reason) : Promise.reject(signal.reason);
  let answer: T | PromiseLike<T>;
  try {
    answer = call();
    // isThenable reads `then`, which may be a getter that throws: inside the try.
    if (!isThenable(answer)) return checked(answer, options);
  } catch (error) {
    return options.fallback(error);
  }
  return race(answer, options);
}

function checked<T, F>(answer: T, options: PortCall<T, F>): T | F {
  if (options.accept && !options.accept(answer)) return options.fallback(new Error('answered what is not an answer'));
  options.answered?.();
  return answer;
}

function race<T, F>(answer: PromiseLike<T>, options: PortCall<T, F>): Promise<T | F> {
  const { signal, timeoutMs } = options;
  return new Promise<T | F>((resolve, reject) => {
    let done = false;
    const finish = (answerWith: () => T | F) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      try {
        resolve(answerWith());
      } catch (error) {
        reject(error);
      }
    };
    const fail = (why: unknown) => (done ? options.late?.(why) : finish(() => options.fallback(why)));
    // A plain timer: fake timers drive it (AbortSignal.timeout they do not).
    const timer = setTimeout(() => fail(new PortTimeout(timeoutMs)), timeoutMs);
    const onAbort = () =>
      finish(() => {
        if (options.abort === 'fallback') return options.fallback(signal?.reason);
        throw signal?.reason;
      });
    signal?.addEventListener('abort', onAbort, { once: true });
    // `then` is called once, here: one that throws, or calls back twice, settles this once.
    try {
      answer.then((value) => finish(() => checked(value, options)), fail);
    } catch (error) {
      fail(error);
    }
  });
}

/**
 * Send a write nobody waits for (a cache entry, news for the fleet): whatever it throws,
 * rejects with or answers goes to `failed`, never up. Shared state is a help, never a condition.
 *
 * @example
 * ```ts
 * firePort(() => events.publish(task), (error) => logger.warn(`could not tell the fleet: ${errorText(error)}`));
 * ```
 */
export function firePort(write: () => unknown, failed: (error: unknown) => void = () => {}): void {
  try {
    const answer = write();
    if (isThenable(answer)) Promise.resolve(answer).then(undefined, failed);
  } catch (error) {
    failed(error);
  }
}

/** What a guard says when its port fails, and when it answers again. */
export interface PortLog {
  warn(message: string): void;
  info?(message: string): void;
}

/** Writes a guard keeps for its port at most, while it does not answer (the oldest go first). */
const MAX_KEPT = 10_000;

/**
 * One port's boundary, with its memory: one warning when the port starts failing and one line
 * when it answers again (not one per call), and the writes that must reach it (a claim's release,
 * a journal entry's clear) kept while it fails and sent again as soon as it answers a call.
 *
 * @example
 * ```ts
 * const guard = new PortGuard('the upload cache’s store', logger);
 * const found = await guard.call(() => store.get(key), { timeoutMs: PORT_TIMEOUT_MS, signal, fallback: () => undefined });
 * guard.keep(`release:${key}`, () => store.release(key));
 * ```
 */
export class PortGuard {
  readonly #name: string;
  readonly #log: PortLog | undefined;
  #failing = false;
  /** Writes to send again when the port answers, by what they write (a later write of the same key replaces one). */
  readonly #kept = new Map<string, () => unknown>();

  /** `name` names the port in its warnings ("the upload cache’s store"). */
  constructor(name: string, log?: PortLog) {
    this.#name = name;
    this.#log = log;
  }

  /**
   * `callPort` through this guard: a failure is this port's (one warning), an answer sends the
   * writes kept for it. `keep`: the call is a write that must arrive; one that did not answer in
   * time (or was left at an abort) is kept under that key and sent again, as `keep()` does.
   */
  call<T, F>(call: () => T | PromiseLike<T>, options: PortCall<T, F> & { keep?: string }): T | F | Promise<T | F> {
    const { keep } = options;
    // A write that must arrive is sent even when its caller has already gone.
    if (keep !== undefined && options.signal?.aborted) {
      void this.keep(keep, call);
      return options.fallback(options.signal.reason);
    }
    return callPort(call, {
      ...options,
      fallback: (why) => {
        if (options.abort !== 'fallback' || !options.signal?.aborted) this.failed(why);
        if (keep !== undefined) this.#keep(keep, call);
        return options.fallback(why);
      },
      answered: () => {
        options.answered?.();
        this.#answered();
      },
    });
  }

  /** A write nobody waits for; its failure is this port's. */
  fire(write: () => unknown): void {
    firePort(write, (error) => this.failed(error));
  }

  /**
   * A write that must reach the port: sent now, and if it fails or is late, kept (under `key`:
   * a later write of the same key replaces it) and sent again when the port next answers.
   * Resolves once it was sent or kept (2 s at most), never rejects.
   */
  keep(key: string, write: () => unknown): Promise<void> {
    this.#kept.delete(key);
    // Kept when late too: the writes that must arrive are idempotent, so sending one twice is safe.
    return Promise.resolve(this.call(write, { timeoutMs: PORT_TIMEOUT_MS, keep: key, fallback: () => {} })).then(() => {});
  }

  /** The port failed a call: one warning when it starts failing. */
  failed(why: unknown): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#log?.warn(`${this.#name} failed (${errorText(why)}): going on without it until it answers again`);
  }

  #keep(key: string, write: () => unknown): void {
    if (!this.#kept.has(key) && this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value as string);
    this.#kept.set(key, write);
  }

  #answered(): void {
    if (this.#failing) {
      this.#failing = false;
      this.#log?.info?.(`${this.#name} answers again`);
    }
    if (this.#kept.size === 0) return;
    const kept = [...this.#kept];
    this.#kept.clear();
    for (const [key, write] of kept) void this.keep(key, write);
  }
}

/** The guard of each port object, made by its first caller: one warning per port, however many features call it. */
const guards = new WeakMap<object, PortGuard>();

/**
 * The guard of `port` (made with `name` and `log` by the first caller). Features that call the
 * same store (the journal: submissions, waits, handlers) share its warning and its kept writes.
 *
 * @example
 * ```ts
 * const guard = guardOf(coordination.journal, 'the coordination’s journal', logger);
 * ```
 */
export function guardOf(port: object, name: string, log?: PortLog): PortGuard {
  let guard = guards.get(port);
  if (!guard) guards.set(port, (guard = new PortGuard(name, log)));
  return guard;
}
