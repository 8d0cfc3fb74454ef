// Peak RSS growth of a video upload from a path to a loopback server, each measurement in a
// fresh process: omnimedia against raw fetch + fs.openAsBlob and ky with its default retry.
import { fork, type ChildProcess } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import type { BenchTable } from '../run.ts';
import { median } from '../lib/stats.ts';

const MiB = 1024 * 1024;
const SIZES = [25, 50];
const RUNS = 5;
const VARIANTS = [
  ['omnimedia', 'omnimedia uploads.video(path)'],
  ['fetch', 'fetch + FormData(fs.openAsBlob)'],
  ['ky', 'ky (default retry) + FormData(fs.openAsBlob)'],
  ['fetch-redirect-error', "fetch + FormData(fs.openAsBlob), redirect: 'error'"],
  ['ky-noretry-redirect-error', "ky retry 0 + FormData(fs.openAsBlob), redirect: 'error'"],
] as const;
const TMP = new URL('../../.bench-tmp/upload-memory/', import.meta.url);
const MP4_HEADER = Uint8Array.from([0, 0, 0, 0x20, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 2, 0, 0x69, 0x73, 0x6f, 0x6d]);

async function makeFile(name: string, size: number): Promise<string> {
  const path = new URL(name, TMP).pathname;
  const handle = await open(path, 'w');
  const chunk = new Uint8Array(MiB);
  for (let written = 0; written < size; written += chunk.byteLength) {
    randomFillSync(chunk); // real, incompressible bytes, not a sparse file
    if (written === 0) chunk.set(MP4_HEADER);
    await handle.write(chunk.subarray(0, Math.min(chunk.byteLength, size - written)));
  }
  await handle.close();
  return path;
}

function message<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('error', reject);
    child.once('exit', (code) => code && reject(new Error(`child exited with ${code}`)));
  });
}

export default async function uploadMemory(): Promise<BenchTable> {
  await mkdir(TMP, { recursive: true });
  const tiny = await makeFile('tiny.mp4', 64 * 1024);
  const files = new Map<number, string>();
  for (const size of SIZES) files.set(size, await makeFile(`${size}mib.mp4`, size * MiB));
  const sink = fork(new URL('../helpers/upload-sink.ts', import.meta.url));
  const rows: (string | number)[][] = [];
  try {
    const { port } = await message<{ port: number }>(sink);
    for (const size of [...SIZES].reverse()) {
      for (const [variant, label] of VARIANTS) {
        const growth: number[] = [];
        for (let run = 0; run < RUNS; run++) {
          const child = fork(new URL('../helpers/upload-memory-child.ts', import.meta.url), [variant, files.get(size)!, `http://127.0.0.1:${port}`, tiny]);
          const result = await message<{ growthMiB: number; sent: number }>(child);
          if (!(result.sent >= size * MiB)) throw new Error(`${variant}: the server got ${result.sent} bytes`);
          growth.push(result.growthMiB);
          await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
        }
        rows.push([label, `${size} MiB`, median(growth).toFixed(1), Math.max(...growth).toFixed(1)]);
      }
    }
  } finally {
    sink.send('stop');
    await rm(TMP, { recursive: true, force: true });
  }
  return {
    title: `Upload memory: peak RSS growth of one video upload from a path (Node ${process.versions.node}, loopback, fresh process per run)`,
    columns: ['upload', 'file', `peak RSS growth, MiB (median of ${RUNS})`, 'max, MiB'],
    rows,
    notes: [
      'Target: at most 50 MiB of growth for a 50 MiB upload, and flat as the file grows.',
      "omnimedia sends uploads with redirect: 'error' (fetch otherwise tees the body to replay it on a 307/308, holding every byte sent), without ky's retry clone (a retry re-opens the file), and reads the file in 32 KiB chunks on demand inside the platform FormData's multipart framing (fetch's own FormData reading piles up larger chunks until a major GC: the two redirect: 'error' rows).",
    ],
  };
}
