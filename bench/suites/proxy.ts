// omnimedia/proxy: what it adds to a task query (latency p50/p99 and requests per second
// through it against the same requests straight to the service), and the peak RSS growth of
// the proxy's process during an upload through it. Three processes: the service stand-in, the
// proxy (the build), and this one sending.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import type { BenchTable } from '../run.ts';
import { measureOwn, BUDGETS } from './size.ts';
import { median, percentile } from '../lib/stats.ts';

const MiB = 1024 * 1024;
const SEQUENTIAL = Number(process.env.SEQ ?? 3_000);
const WARMUP = 500;
const CONCURRENCY = 16;
const THROUGHPUT_MS = 3_000;
const UPLOAD_RUNS = Number(process.env.RUNS ?? 3);
const TASK = '/v1/tasks/task_bench_1';
const HEADERS = { cookie: 'session=bench' };

async function start(script: string, args: string[] = [], execArgv: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(new URL(script, import.meta.url), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...execArgv] });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  return { child, url: `http://127.0.0.1:${port}` };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.connected) child.disconnect();
  child.send?.('stop', () => {});
  if (child.exitCode === null) await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 2_000).unref())]);
  if (child.exitCode === null) child.kill();
}

async function query(url: string): Promise<void> {
  const response = await fetch(url, { headers: HEADERS });
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  await response.arrayBuffer();
}

/** ms per query, one at a time, the two targets interleaved so that noise hits both alike. */
async function latencies(direct: string, proxied: string): Promise<{ direct: number[]; proxied: number[] }> {
  for (let i = 0; i < WARMUP; i++) await Promise.all([query(direct), query(proxied)]);
  const out = { direct: [] as number[], proxied: [] as number[] };
  for (let i = 0; i < SEQUENTIAL; i++) {
    for (const [name, url] of (i % 2 ? [['direct', direct], ['proxied', proxied]] : [['proxied', proxied], ['direct', direct]]) as ['direct' | 'proxied', string][]) {
      const started = performance.now();
      await query(url);
      out[name].push(performance.now() - started);
    }
  }
  return { direct: out.direct.sort((a, b) => a - b), proxied: out.proxied.sort((a, b) => a - b) };
}

/** Queries per second with CONCURRENCY in flight for THROUGHPUT_MS. */
async function throughput(url: string): Promise<number> {
  let done = 0;
  const until = performance.now() + THROUGHPUT_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await query(url);
        done++;
      }
    }),
  );
  return done / (THROUGHPUT_MS / 1000);
}

const BOUNDARY = '----BenchBoundary';
const MP4_HEAD = Uint8Array.from([0, 0, 0, 0x20, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 2, 0]);

/** Upload `size` bytes of "video" through the proxy as a page's form (chunked, 64 KiB writes); resolve with the status. */
function upload(url: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/omnimedia/v1/uploads/videos`, {
      method: 'POST',
      headers: { ...HEADERS, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const chunk = new Uint8Array(64 * 1024).fill(7);
    chunk.set(MP4_HEAD);
    let sent = 0;
    req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
    const pump = () => {
      while (!answered && sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.byteLength, size - sent));
        sent += piece.byteLength;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!answered) req.end(`\r\n--${BOUNDARY}--\r\n`);
    };
    pump();
  });
}

/**
 * A submission of `size` bytes of JSON written in one-byte HTTP chunks (what a hostile page
 * may send: each chunk costs the proxy far more than its byte unless it gathers them).
 */
function oneByteChunks(url: string, size: number): Promise<number> {
  const body = Buffer.from(JSON.stringify({ model: 'm', prompt: 'p', padding: 'x'.repeat(size - 40) }));
  const framed: Buffer[] = [];
  for (let at = 0; at < body.length; at++) framed.push(Buffer.from('1\r\n'), body.subarray(at, at + 1), Buffer.from('\r\n'));
  return new Promise((resolve, reject) => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(Buffer.concat(received).toString('latin1').split(' ')[1])));
    socket.write(`POST /api/omnimedia/v1/images/generations HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${HEADERS.cookie}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
    // Not end(): a half-closed request is one Node's server may close before answering.
    socket.write(Buffer.concat([...framed, Buffer.from('0\r\n\r\n')]));
  });
}

/** Peak RSS growth of a fresh proxy process during one request (`send`); checks the status. */
async function uploadGrowth(sink: string, size: number, status: number, send: (url: string, size: number) => Promise<number> = upload): Promise<number> {
  const proxy = await start('../helpers/proxy-child.ts', [sink], ['--expose-gc']);
  try {
    if ((await upload(proxy.url, 64 * 1024)) !== 200) throw new Error('proxy bench: the warm-up upload failed');
    proxy.child.send('mark');
    const got = await send(proxy.url, size);
    if (got !== status) throw new Error(`proxy bench: a request of ${size} bytes got ${got}, not ${status}`);
    proxy.child.send('report');
    const [{ growthMiB }] = (await once(proxy.child, 'message')) as [{ growthMiB: number }];
    return growthMiB;
  } finally {
    await stop(proxy.child);
  }
}

export default async function proxyBench(): Promise<BenchTable> {
  const service = await start('../servers/api-server.ts');
  const sink = await start('../helpers/upload-sink.ts');
  const proxy = await start('../helpers/proxy-child.ts', [service.url]);
  const bare = await start('../helpers/raw-proxy-child.ts', [service.url]);
  const rows: (string | number)[][] = [];
  try {
    const { direct, proxied } = await latencies(`${service.url}${TASK}`, `${proxy.url}/api/omnimedia${TASK}`);
    const p50 = [percentile(direct, 50), percentile(proxied, 50)] as const;
    const p99 = [percentile(direct, 99), percentile(proxied, 99)] as const;
    rows.push(['task query latency p50, ms', p50[0].toFixed(3), p50[1].toFixed(3), `+${(p50[1] - p50[0]).toFixed(3)} ms (goal ≤ 1 ms)`]);
    rows.push(['task query latency p99, ms', p99[0].toFixed(3), p99[1].toFixed(3), `+${(p99[1] - p99[0]).toFixed(3)} ms (goal ≤ 5 ms)`]);

    const rates = { direct: [] as number[], proxied: [] as number[], bare: [] as number[] };
    for (let round = 0; round < 3; round++) {
      rates.direct.push(await throughput(`${service.url}${TASK}`));
      rates.proxied.push(await throughput(`${proxy.url}/api/omnimedia${TASK}`));
      rates.bare.push(await throughput(`${bare.url}/api/omnimedia${TASK}`));
    }
    const [rd, rp, rb] = [median(rates.direct), median(rates.proxied), median(rates.bare)];
    rows.push([`task queries per second (${CONCURRENCY} in flight)`, rd.toFixed(0), rp.toFixed(0), `${(rp / rd).toFixed(2)}x of direct`]);
    rows.push(['for scale: the same through a bare hop (node:http + fetch, no checks)', rd.toFixed(0), rb.toFixed(0), `${(rb / rd).toFixed(2)}x of direct; the proxy ${(rp / rb).toFixed(2)}x of it`]);

    for (const [label, size, status, goal] of [
      ['50 MiB video upload', 50 * MiB, 200, ''],
      ['45 MiB video upload', 45 * MiB, 200, ' (goal ≤ 40 MiB)'],
      ['200 MB video upload, refused at 50 MiB', 200 * 1000 * 1000, 413, ' (goal ≤ 64 MiB)'],
    ] as const) {
      const growth: number[] = [];
      for (let run = 0; run < UPLOAD_RUNS; run++) growth.push(await uploadGrowth(sink.url, size, status));
      rows.push([`${label}: proxy peak RSS growth, MiB`, '', `${median(growth).toFixed(1)} (max ${Math.max(...growth).toFixed(1)})`, `median of ${UPLOAD_RUNS} fresh processes${goal}`]);
    }
    const tiny: number[] = [];
    for (let run = 0; run < UPLOAD_RUNS; run++) tiny.push(await uploadGrowth(sink.url, MiB - 1024, 200, oneByteChunks));
    rows.push(['1 MiB JSON submission in one-byte chunks: proxy peak RSS growth, MiB', '', `${median(tiny).toFixed(1)} (max ${Math.max(...tiny).toFixed(1)})`, `median of ${UPLOAD_RUNS} fresh processes; a hostile page's framing`]);
    const client = (await measureOwn()).find((bundle) => bundle.name === 'client');
    if (client) rows.push(['the whole client with proxy mode, gzip -9', '', `${client.gz.toLocaleString('en-US')} B`, `target ≤ ${BUDGETS.client},000 B`]);
  } finally {
    await stop(bare.child);
    await stop(proxy.child);
    await stop(service.child);
    await stop(sink.child);
  }
  return {
    title: `omnimedia/proxy: what it adds (Node ${process.versions.node}, loopback; service, proxy and client in three processes)`,
    columns: ['measure', 'direct to the service', 'through the proxy', 'difference'],
    rows,
    notes: [
      `Latency: ${SEQUENTIAL} sequential task queries to each, interleaved, after ${WARMUP} warm-up pairs; the proxy runs authorize, the origin check and the answer's key scrub on each. Uploads: a page's multipart form written in 64 KiB pieces, chunked, to a sink that discards it; RSS of the proxy's process sampled every ms (and its maxRSS).`,
    ],
  };
}
