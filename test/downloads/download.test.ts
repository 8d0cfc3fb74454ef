// `idleTimeout` bounds the wait for the network, not the consumer: a download piped into a
// writer slower than the idle timeout, from a server that sent everything at once, must not
// fail with "no data for N ms". Fake time; the body is a stream whose chunks are all there.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APITimeoutError, OmniMedia } from '../../src/index.ts';

const CHUNKS = 6;
const CHUNK = new Uint8Array(64 * 1024).fill(7); // over the read-ahead of Readable.fromWeb (16 KiB)
const IDLE_MS = 100;
const WRITE_MS = 400; // each chunk takes the writer 4 idle timeouts

/** A client whose fetch answers at once with a body whose chunks are all available. */
function clientWith(body: () => ReadableStream<Uint8Array>) {
  return new OmniMedia({ baseURL: 'https://api.test', fetch: async () => new Response(body(), { status: 200 }) });
}
const allThere = () =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < CHUNKS; i++) controller.enqueue(CHUNK.slice());
      controller.close();
    },
  });
/** A body that sends one chunk, then nothing (a stalled server). */
const stalled = () =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(CHUNK.slice());
    },
  });

const later = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('idleTimeout counts only the wait for the network', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => void vi.useRealTimers());

  it('a slow Node Writable gets every byte', async () => {
    let written = 0;
    const slow = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        written += chunk.byteLength;
        setTimeout(done, WRITE_MS);
      },
    });
    const download = clientWith(allThere).files.download('https://files.test/a.bin', { to: slow, idleTimeout: IDLE_MS });
    const outcome = download.then(() => 'done', (error: unknown) => error);
    await vi.advanceTimersByTimeAsync(WRITE_MS * (CHUNKS + 2));
    expect(await outcome).toBe('done');
    expect(written).toBe(CHUNKS * CHUNK.byteLength);
  });

  it('a slow web WritableStream gets every byte', async () => {
    let written = 0;
    const slow = new WritableStream<Uint8Array>(
      {
        async write(chunk) {
          written += chunk.byteLength;
          await later(WRITE_MS);
        },
      },
      { highWaterMark: 1 },
    );
    const download = clientWith(allThere).files.download('https://files.test/a.bin', { to: slow, idleTimeout: IDLE_MS });
    const outcome = download.then(() => 'done', (error: unknown) => error);
    await vi.advanceTimersByTimeAsync(WRITE_MS * (CHUNKS + 2));
    expect(await outcome).toBe('done');
    expect(written).toBe(CHUNKS * CHUNK.byteLength);
  });

  it('a stalled server still fails after idleTimeout of silence, however slow the writer', async () => {
    const slow = new WritableStream<Uint8Array>({ write: () => later(WRITE_MS) }, { highWaterMark: 1 });
    const download = clientWith(stalled).files.download('https://files.test/a.bin', { to: slow, idleTimeout: IDLE_MS });
    const outcome = download.then(() => 'done', (error: unknown) => error);
    await vi.advanceTimersByTimeAsync(WRITE_MS + IDLE_MS + 10);
    const error = await outcome;
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toMatch(`no data for ${IDLE_MS} ms`);
  });
});
