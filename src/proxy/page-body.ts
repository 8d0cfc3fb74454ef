/**
 * Reading the page's request body: every read under `idleTimeout` (a body that makes no
 * progress for that long is a 408, and whatever it was feeding upstream is aborted with it),
 * and JSON bodies capped at 1 MiB and parsed strictly.
 */
import { MAX_JSON_BODY_BYTES, readAtMost, type ChunkSource } from '../internal/chunks.ts';
import { PlainDataError, toPlainData } from '../internal/plain-data.ts';
import { Exchange } from '../transport/exchange.ts';
import { ProxyRefusal } from './answers.ts';

/** Smallest read handed on (16 KiB, a quarter of a socket read), but for the body's last bytes. */
const MIN_READ = 16 * 1024;

/**
 * The page's body as chunks, each read given `idleTimeout` ms. `exchange` ends when the page
 * goes away (its request's signal) or stalls (a `ProxyRefusal` 408): pass its signal on to the
 * upstream request so that either aborts it.
 */
export function pageBody(body: ReadableStream<Uint8Array> | null, signal: AbortSignal | undefined, idleTimeout: number): { read: ChunkSource; exchange: Exchange; cancel: () => void } {
  const stalled = () => new ProxyRefusal(408, 'request_timeout', `the request body made no progress for ${idleTimeout} ms`);
  const exchange = new Exchange(signal, undefined, stalled);
  const reader = body?.getReader();
  const readOne: ChunkSource = async () => {
    if (!reader) return undefined;
    exchange.restartDeadline(idleTimeout, stalled);
    try {
      const { done, value } = await exchange.race(reader.read());
      return done ? undefined : value;
    } finally {
      exchange.restartDeadline(undefined, stalled);
    }
  };
  // A page's chunks are what its HTTP framing made them: one byte each, if it likes. Kept or
  // passed on one by one they cost far more than their bytes (measured: a 1 MiB JSON body in
  // one-byte chunks grew the heap by 272 MB; a 4 MiB upload so took 38 s of CPU and reached
  // the service as 4 million chunks), so small ones are gathered into MIN_READ bytes first.
  // A chunk that does not fit waits for the next read: large chunks are never copied.
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
  return { read, exchange, cancel };
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
