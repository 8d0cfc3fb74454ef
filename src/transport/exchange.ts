import { concatBytes } from '../internal/bytes.ts';
import { contentLength } from '../internal/content-length.ts';

/**
 * One HTTP exchange under one deadline and the caller's signal, from the connection to the
 * last byte of the body.
 *
 * Why the SDK does not simply hand `fetch` the caller's signal and trust it: Node's fetch
 * (undici) links the signal it is given to the connection through its own `Request` object,
 * and only while that object lives. Once the headers have arrived nothing else holds it, so
 * after a full GC an abort or a timeout no longer reaches the body: a download kept writing
 * its `.part`, and a stalled task query stayed pending forever (reproduced with `global.gc()`,
 * test/integration/hostile-network.test.ts). So an exchange owns its controller, whose signal goes
 * to fetch, and races that controller itself against every phase: the wait for the headers
 * and every body read. A caller's abort or the deadline rejects the phase in flight at once,
 * and cancels the body, which closes the socket.
 */
export class Exchange {
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timeoutError: () => unknown = () => new Error('timed out');
  #reason: unknown;
  #ended: 'caller' | 'deadline' | undefined;
  /** The phases in flight (`race`): rejected with the reason when the exchange is cut short. */
  readonly #racing = new Set<(reason: unknown) => void>();

  /**
   * @param signal the caller's signal; its abort ends the exchange with the signal's reason.
   * @param timeout ms until the exchange ends with `timeoutError()`; `undefined` for none.
   */
  constructor(signal: AbortSignal | undefined, timeout: number | undefined, timeoutError: () => unknown) {
    this.#caller = signal;
    if (signal?.aborted) this.#end('caller', signal.reason);
    else signal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.restartDeadline(timeout, timeoutError);
  }

  /** The signal to give `fetch`: aborted when the exchange is cut short. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the exchange was cut short, if it was: the caller's abort, or the deadline. */
  get ended(): 'caller' | 'deadline' | undefined {
    return this.#ended;
  }

  /** What a cut-short exchange rejects with: the caller's reason, or the timeout error. */
  get reason(): unknown {
    return this.#reason;
  }

  /**
   * Start the deadline over: `timeout` ms from now (none when `undefined`). Downloads switch
   * from the time to the headers to an idle timeout between chunks this way. A timer rather
   * than `AbortSignal.timeout()`: it can be restarted, and fake timers see it (the suite's
   * retry and deadline tests run on fake time).
   */
  restartDeadline(timeout: number | undefined, timeoutError: () => unknown): void {
    if (this.#ended) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timeoutError = timeoutError;
    if (timeout !== undefined) this.#timer = setTimeout(() => this.#end('deadline', this.#timeoutError()), timeout);
  }

  /**
   * `promise`, unless the exchange is cut short first: then its reason, at once (and whatever
   * `promise` does after that is handled). The exchange rejects its phases itself rather than
   * through a listener on its signal per phase: every call races two (the headers, the body),
   * and the listeners were about 7 µs of a task query's 150 (bench overhead, issue 40).
   */
  race<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#ended) reject(this.#reason);
      this.#racing.add(reject);
      // Out of the set a tick after it settled (a reject called then does nothing): one
      // closure where three were.
      promise.then(resolve, reject).then(() => this.#racing.delete(reject));
    });
  }

  /**
   * Cut the exchange short now with `reason`, as a caller's abort would: what streams its
   * request body aborts the request this way when the body fails (a runtime may take a body
   * stream that errors as one that ended: workerd does).
   */
  cancel(reason: unknown): void {
    this.#end('caller', reason);
  }

  /** Let go of the caller's signal and the timer. The exchange can no longer be cut short. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }

  readonly #onCallerAbort = (): void => this.#end('caller', this.#caller?.reason);

  #end(why: 'caller' | 'deadline', reason: unknown): void {
    if (this.#ended) return;
    this.#ended = why;
    this.#reason = reason;
    this.close();
    this.#controller.abort(reason);
    for (const reject of this.#racing) reject(reason);
    this.#racing.clear();
  }
}

/** A body read to its end, or to the cap, as text (UTF-8, as fetch's `text()` reads it). */
export interface ReadText {
  text: string;
  /** The body went on past the cap: `text` holds its first `max` bytes, the rest was not read. */
  overflow: boolean;
}

const decoder = new TextDecoder();

/**
 * Read a response body under the exchange, keeping at most `max` bytes: past them the read
 * stops and the body is cancelled (which closes the connection), so a server that streams
 * without end costs `max` bytes of memory. Every read is raced against the exchange.
 * `whole`: the body comes from a server that caps it itself (the app's `omnimedia/proxy`), and
 * is read whole, then checked: Chromium records a `Cache-Control: no-store` answer read with a
 * stream reader as cancelled (net::ERR_ABORTED) now and then, though every byte arrived (on
 * Next.js, 1 to 4 of a page's 5 calls; microsoft/playwright#42742).
 */
export async function readText(response: Response, exchange: Exchange, max: number, whole = false): Promise<ReadText> {
  const body = response.body;
  if (!body) return { text: '', overflow: false };
  // A body whose length is declared and within the cap, as sent (not decompressed, which could
  // make it any size), is read in one step: one race and fetch's own `text()` (every task
  // query's answer; 10 µs a call less than `arrayBuffer()` and a TextDecoder on Node 24, issue
  // 40). fetch holds a server to its content-length.
  const declared = contentLength(response.headers.get('content-length'));
  const encoding = response.headers.get('content-encoding');
  if (!whole && declared !== undefined && declared <= max && (!encoding || encoding === 'identity')) {
    return { text: await exchange.race(response.text()), overflow: false };
  }
  if (whole) {
    const bytes = new Uint8Array(await exchange.race(response.arrayBuffer()));
    return bytes.byteLength > max ? { text: decoder.decode(bytes.subarray(0, max)), overflow: true } : { text: decoder.decode(bytes), overflow: false };
  }
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await exchange.race(reader.read());
      if (done) break;
      if (total + value.byteLength > max) {
        parts.push(value.subarray(0, max - total));
        total = max;
        reader.cancel().catch(() => {});
        return { text: decoder.decode(concatBytes(parts)), overflow: true };
      }
      parts.push(value);
      total += value.byteLength;
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  return { text: decoder.decode(concatBytes(parts)), overflow: false };
}

/**
 * The body as a stream whose every read is raced against the exchange, under an idle timeout
 * that runs only while a read from the network is pending: started before each read, stopped
 * when it returns, so a long download may take long and a slow consumer (a disk, a client on
 * the other end of a pipe) may take its time, while a stalled server may not. A cut-short
 * exchange errors the stream, even when nobody is reading, and cancels the source. The
 * exchange is closed when the stream ends.
 */
export function guardedBody(
  body: ReadableStream<Uint8Array> | null,
  exchange: Exchange,
  idleTimeout: number,
  idleError: () => unknown,
): ReadableStream<Uint8Array> {
  if (!body) {
    exchange.close();
    return new ReadableStream({ start: (controller) => controller.close() });
  }
  const reader = body.getReader();
  let stop: (() => void) | undefined;
  const finish = () => {
    if (stop) exchange.signal.removeEventListener('abort', stop);
    exchange.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stop = () => {
          controller.error(exchange.reason);
          reader.cancel(exchange.reason).catch(() => {});
        };
        exchange.signal.addEventListener('abort', stop, { once: true });
      },
      async pull(controller) {
        exchange.restartDeadline(idleTimeout, idleError);
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await exchange.race(reader.read());
          // The network answered: the consumer's time until the next pull is not idleness.
          exchange.restartDeadline(undefined, idleError);
        } catch (error) {
          finish();
          reader.cancel().catch(() => {});
          // An exchange cut short has errored the stream already (see `stop`).
          if (!exchange.ended) controller.error(error);
          return;
        }
        if (step.done) {
          finish();
          controller.close();
        } else controller.enqueue(step.value);
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
