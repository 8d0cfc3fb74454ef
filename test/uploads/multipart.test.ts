// The form reader hands the file's bytes on as views of the chunks it read, never copies: a
// server that keeps an upload's bytes (the mock) or counts them (the proxy) holds the file once,
// not the file and a copy of each chunk (issue 39 item 10: a refused 300 MiB image upload grew
// the mock's RSS by 80 MiB; the reader joined its small tail to each chunk, a copy of the chunk).
import { describe, expect, it } from 'vitest';
import { readFilePart } from '../../src/uploads/multipart.ts';

const BOUNDARY = 'test-boundary-42';
const encoder = new TextEncoder();
const KiB = 1024;

/** Bytes of the form around a file (its headers and closing boundary, under 200). */
const formLength = (file: Uint8Array) => file.length + 200;

/** The form's bytes in `sizes`-long chunks (the last one the remainder), and its file. */
function chunked(file: Uint8Array, sizes: number): Uint8Array[] {
  const head = encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
  const tail = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  const form = new Uint8Array(head.length + file.length + tail.length);
  form.set(head);
  form.set(file, head.length);
  form.set(tail, head.length + file.length);
  const chunks: Uint8Array[] = [];
  // Each chunk in an ArrayBuffer of its own, as a socket read gives it.
  for (let at = 0; at < form.length; at += sizes) chunks.push(form.slice(at, at + sizes));
  return chunks;
}

async function readAll(chunks: Uint8Array[]): Promise<{ pieces: Uint8Array[]; copied: number }> {
  const queue = [...chunks];
  const part = await readFilePart(async () => queue.shift(), BOUNDARY, (message) => new Error(message));
  const buffers = new Set(chunks.map((chunk) => chunk.buffer));
  const pieces: Uint8Array[] = [];
  let copied = 0;
  for (let piece = await part.next(); piece !== undefined; piece = await part.next()) {
    pieces.push(piece);
    if (!buffers.has(piece.buffer)) copied += piece.byteLength;
  }
  return { pieces, copied };
}

describe('the form reader copies no chunk', () => {
  it('a file full of the delimiter\u2019s beginnings, cut anywhere: whole, and only the delimiter ends it', async () => {
    const near = encoder.encode(`\r\n--${BOUNDARY.slice(0, -1)}x\r\r\n-`);
    const file = new Uint8Array(near.length * 400).map((_, i) => near[i % near.length]!);
    for (const size of [1, 3, 19, 20, 21, 4096]) {
      const { pieces } = await readAll(chunked(file, size));
      expect(Buffer.concat(pieces)).toEqual(Buffer.from(file));
    }
  });

  it.each([
    ['64 KiB chunks', 64 * KiB],
    ['chunks of 1,000 bytes (the delimiter falls across chunks)', 1000],
    ['chunks of 7 bytes (shorter than the delimiter)', 7],
  ])('%s: the file comes back whole, its bytes views of the chunks read (copied: the chunk of the headers and that of the delimiter, no other)', async (_, size) => {
    const file = new Uint8Array(size < 100 ? 30 * KiB : 300 * KiB).map((_, i) => (i * 31) % 251);
    const { pieces, copied } = await readAll(chunked(file, size));
    const joined = new Uint8Array(pieces.reduce((n, piece) => n + piece.length, 0));
    let at = 0;
    for (const piece of pieces) joined.set(piece, (at += piece.length) - piece.length);
    expect(joined).toEqual(file);
    // One piece per read, not one more: a piece is a read's worth (the proxy sends it on as one).
    expect(pieces.length).toBeLessThanOrEqual(Math.ceil(formLength(file) / size) + 1);
    // Chunks shorter than the delimiter are joined to the bytes held (a few bytes each).
    if (size < 100) return;
    // Before: every chunk after the first was joined to the tail kept from the one before, a copy of it.
    expect(copied).toBeLessThanOrEqual(2 * size + 2 * `\r\n--${BOUNDARY}`.length);
  });
});
