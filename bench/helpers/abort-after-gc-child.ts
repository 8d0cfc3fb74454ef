// Trials of bench/suites/hostile.ts, in a process started with --expose-gc: a response that
// starts and then stalls, a full GC, then abort; the time from abort to rejection.
// argv: <scenario: download | query> <variant: omnimedia | fetch> <trials>
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import ky from 'ky';
import { OmniMedia } from 'omnimedia';

const [scenario, variant, trialsArg] = process.argv.slice(2) as ['download' | 'query', 'omnimedia' | 'fetch' | 'ky', string];
const trials = Number(trialsArg);
const NEVER_MS = 5_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const sockets = new Set<Socket>();
const server = createServer((_req, res: ServerResponse) => {
  res.shouldKeepAlive = false;
  if (scenario === 'download') {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': '10000000' });
    res.write(new Uint8Array(64 * 1024));
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"task_id":"task_1",');
  }
});
server.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const dir = await mkdtemp(join(tmpdir(), 'omnimedia-gc-bench-'));
let headersArrived: () => void = () => {};
// Tells when a response's headers are in, holding nothing of the request itself.
const client = new OmniMedia({
  baseURL: base,
  logLevel: 'off',
  maxRetries: 0,
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    headersArrived();
    return response;
  },
});

/** The call under test; resolves when the first bytes of the body have been read. */
function start(signal: AbortSignal, trial: number): { done: Promise<unknown>; reading: Promise<void> } {
  let read!: () => void;
  const reading = new Promise<void>((resolve) => (read = resolve));
  const to = join(dir, `r-${trial}.png`);
  if (variant === 'omnimedia') {
    if (scenario === 'download') return { done: client.files.download(`${base}/r.png`, { to, signal, onProgress: ({ loaded }) => loaded > 0 && read() }), reading };
    headersArrived = read;
    return { done: client.tasks.retrieve('task_1', { signal }), reading };
  }
  const done = (async () => {
    // ky hands fetch its Request's signal: the pattern the SDK used before (see the table's note).
    const response = variant === 'ky' ? await ky(`${base}/r.png`, { signal, retry: 0, timeout: false }) : await fetch(`${base}/r.png`, { signal });
    if (scenario === 'download') {
      const counted = response.body!.pipeThrough(new TransformStream({ transform: (chunk, c) => (read(), c.enqueue(chunk)) }));
      await pipeline(Readable.fromWeb(counted as never), createWriteStream(`${to}.part`));
    } else {
      read();
      await response.text();
    }
  })();
  return { done, reading };
}

const times: number[] = [];
let never = 0;
for (let trial = 0; trial < trials; trial++) {
  const controller = new AbortController();
  const { done, reading } = start(controller.signal, trial);
  const outcome = done.then(
    () => 'resolved',
    () => 'rejected',
  );
  await reading;
  for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  gc();
  gc();
  const t0 = performance.now();
  controller.abort(new Error('cancel'));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const result = await Promise.race([outcome, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('never'), NEVER_MS)))]);
  clearTimeout(timer);
  if (result === 'never') never++;
  else times.push(performance.now() - t0);
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => setImmediate(resolve));
}
const leftovers = (await readdir(dir)).filter((name) => name.endsWith('.part')).length;
await rm(dir, { recursive: true, force: true });
server.close();
process.send?.({ times, never, leftovers });
process.exit(0);
