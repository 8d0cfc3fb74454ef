/**
 * A request body read a chunk at a time, by the servers of this package (the proxy, the mock):
 * never more than a read's worth held beyond what the caller keeps, and a body past its cap
 * refused the moment the count passes it, not once it has all been read.
 */
import { concatBytes } from './bytes.ts';

/** Reads a body: the next chunk, or `undefined` at its end. */
export type ChunkSource = () => Promise<Uint8Array | undefined>;

/** Largest JSON request body the proxy and the mock take: 1 MiB (a submission is a few KB). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * A body's chunks, and `release` to stop reading it. Released, not cancelled: the server under
 * the request closes what was not read once it has answered (@hono/node-server drains at most
 * 64 MiB in 500 ms, then closes the socket), and Node's own Request body built from a FormData
 * throws an uncaught error when cancelled mid-read (Node 24: 'ReadableStream is already
 * closed'), which would end the process of a test that sends one to the mock.
 */
export function chunksOf(body: ReadableStream<Uint8Array> | null): { read: ChunkSource; release: () => void } {
  const reader = body?.getReader();
  return {
    read: async () => {
      if (!reader) return undefined;
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    release: () => reader?.releaseLock(),
  };
}

/** The whole body when it is at most `max` bytes; `undefined` the moment it passes them (nothing more is read). */
export async function readAtMost(read: ChunkSource, max: number): Promise<Uint8Array | undefined> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let chunk = await read(); chunk !== undefined; chunk = await read()) {
    total += chunk.byteLength;
    if (total > max) return undefined;
    parts.push(chunk);
  }
  return concatBytes(parts);
}
