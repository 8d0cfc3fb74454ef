/**
 * Reading the page's request body: every read under `idleTimeout` (a body that makes no
 * progress for that long is a 408, and whatever it was feeding upstream is aborted with it),
 * reads of at least 16 KiB whatever the page's framing, JSON bodies capped at 1 MiB and parsed
 * strictly, and the rest of a refused body read and dropped while it keeps coming (`linger`).
 */
import { MAX_JSON_BODY_BYTES, readAtMost, type ChunkSource } from '../internal/chunks.ts';
import { PlainDataError, toPlainData } from '../internal/plain-data.ts';
import { Exchange } from '../transport/exchange.ts';
import { ProxyRefusal } from './answers.ts';

/**
 * Smallest read handed on, but for the body's last bytes: 16 KiB, a quarter of a socket read
 * (one-byte chunks passed on one by one: +272 MB of heap for a 1 MiB JSON body).
 */
const MIN_READ = 16 * 1024;

/**
 * How long the rest of a refused body is read and dropped before the connection may close: as
 * long as it keeps coming (a read at least every 5 s), 30 s at most, as nginx's lingering
 * close does. A server that closes on unread bytes resets the connection (the kernel does, and
 * workerd), and a page still sending then never reads the answer (2 s was too short for a
 * 30 MiB upload through workerd on a busy machine).
 */
const LINGER_IDLE_MS = 5_000;
const LINGER_MAX_MS = 30_000;

/**
 * Read and drop what is left of a body (`chunks`) while it keeps coming (see `LINGER_IDLE_MS`),
 * then let it go (`return()`: closes a socket, cancels a stream).
 */
export async function linger(chunks: { next(): Promise<{ done?: boolean | undefined }>; return?(): unknown }): Promise<void> {
  const until = Date.now() + LINGER_MAX_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    for (;;) {
      const wait = Math.min(LINGER_IDLE_MS, until - Date.now());
      const stop = new Promise<'stop'>((resolve) => (timer = setTimeout(() => resolve('stop'), Math.max(0, wait))));
      const step = await Promise.race([chunks.next(), stop]);
      clearTimeout(timer);
      if (step === 'stop') return void (await chunks.return?.());
      if (step.done) return; // the body ended: the connection is clean, kept alive
    }
  } catch {
    // A body that breaks off while being dropped: nothing left to protect.
  } finally {
    clearTimeout(timer);
  }
}

/** The page's body, read. */
export interface PageBody {
  /** The next chunk (16 KiB at least, but the last), or `undefined` at the end. */
  read: ChunkSource;
  /**
   * Ends when the page goes away (its request's signal) or stalls (a `ProxyRefusal` 408):
   * pass its signal on to the upstream request so that either aborts it.
   */
  exchange: Exchange;
  /** Read and drop the rest of the body (`linger`), unless it ended or the exchange did. */
  drop: () => Promise<void>;
}

/** The page's body as chunks, each read given `idleTimeout` ms. */
export function pageBody(body: ReadableStream<Uint8Array> | null, signal: AbortSignal | undefined, idleTimeout: number): PageBody {
  const stalled = () => new ProxyRefusal(408, 'request_timeout', `the request body made no progress for ${idleTimeout} ms`);
  const exchange = new Exchange(signal, undefined, stalled);
  const reader = body?.getReader();
  let ended = !reader;
  const readOne: ChunkSource = async () => {
    if (!reader) return undefined;
    exchange.restartDeadline(idleTimeout, stalled);
    try {
      const { done, value } = await exchange.race(reader.read());
      if (done) ended = true;
      return done ? undefined : value;
    } finally {
      exchange.restartDeadline(undefined, stalled);
    }
  };
  // Small chunks are gathered into MIN_READ bytes; a chunk that does not fit waits for the next
  // read, so large chunks are never copied.
  let next: Uint8Array | undefined;
  const read: ChunkSource = async () => {
    const first = next ?? (await readOne());
    next = undefined;
    if (first === undefined || first.byteLength >= MIN_READ) return first;
    const gathered = new Uint8Array(MIN_READ);
    gathered.set(first);
    let size = first.byteLength;
    while (size < MIN_READ) {
      const chunk = await readOne();
      if (chunk === undefined) break;
      if (size + chunk.byteLength > MIN_READ) {
        next = chunk;
        break;
      }
      gathered.set(chunk, size);
      size += chunk.byteLength;
    }
    return gathered.subarray(0, size);
  };
  const cancel = () => void reader?.cancel().catch(() => {});
  exchange.signal.addEventListener('abort', cancel, { once: true });
  const drop = async () => {
    if (ended || exchange.ended || !reader) return;
    await linger({ next: () => reader.read(), return: cancel });
  };
  return { read, exchange, drop };
}

/** Read a JSON body whole, refusing it at `max` bytes (413) or when it is not strict UTF-8 JSON (400). */
export async function readJson(read: ChunkSource, declared: number | undefined, max = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const tooLarge = () => new ProxyRefusal(413, 'too_large', `the JSON body is larger than ${max.toLocaleString('en-US')} bytes`);
  if (declared !== undefined && declared > max) throw tooLarge();
  const bytes = await readAtMost(read, max);
  if (!bytes) throw tooLarge();
  const invalid = (why: string) => new ProxyRefusal(400, 'invalid_json', `the body is not ${why}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid('UTF-8');
  }
  try {
    return toPlainData(JSON.parse(text));
  } catch (error) {
    throw invalid(error instanceof PlainDataError ? `plain JSON data (it ${error.message})` : 'JSON');
  }
}
