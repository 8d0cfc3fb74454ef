import { mkdtemp, open, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export const FIXTURES = new URL('../fixtures/', import.meta.url);

/** A committed fixture (see test/fixtures/README.md): its path and bytes. */
export function fixture(name: 'tiny.png' | 'tiny.jpg' | 'tiny.webp' | 'tiny.gif' | 'tiny.mp4' | 'tiny.mov' | 'tiny.webm') {
  const url = new URL(name, FIXTURES);
  return { path: url.pathname, bytes: new Uint8Array(readFileSync(url)) };
}

/** A temporary directory for this test file, removed at the end. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'omnimedia-test-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A file of exactly `size` bytes that starts with a real media header (a fixture's first
 * bytes) and is sparse after it: a 50 MiB file costs no disk and no memory.
 */
export async function sparseFile(path: string, header: Uint8Array, size: number): Promise<string> {
  const handle = await open(path, 'w');
  await handle.write(header.subarray(0, Math.min(header.byteLength, size)));
  await handle.truncate(size);
  await handle.close();
  return path;
}

/** A stream of `size` bytes (the header, then zeros), in chunks, pulled on demand. */
export function byteStream(header: Uint8Array, size: number, chunk = 1024 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= size) return controller.close();
        const n = Math.min(chunk, size - sent);
        const bytes = new Uint8Array(n);
        if (sent === 0) bytes.set(header.subarray(0, n));
        sent += n;
        controller.enqueue(bytes);
      },
    },
    { highWaterMark: 0 },
  );
}
