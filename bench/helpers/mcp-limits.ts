// `omnimedia mcp`'s limits, on the built bin as a client starts it: the peak memory of the
// server while a 400 MiB result is rendered (the result served without Content-Length, so the
// cap is met while streaming), when a plain call with --wait-ms 6000 and four 8 MiB results
// answers, and 200 connect/close cycles of the MCP SDK client over --http (no DELETE).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BenchTable } from '../run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** Stream `size` bytes starting with a PNG signature, without Content-Length unless `length`. */
function streamBytes(res: ServerResponse, size: number, length: boolean): void {
  res.writeHead(200, { 'content-type': 'image/png', ...(length ? { 'content-length': String(size) } : {}) });
  const chunk = Buffer.alloc(256 * 1024);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(chunk);
  let written = 0;
  const pump = () => {
    while (!res.destroyed && written < size) {
      const piece = chunk.subarray(0, Math.min(chunk.length, size - written));
      written += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** A service whose task completes with `count` results of `size` bytes each. */
async function resultService(count: number, size: number, length: boolean) {
  const server = createServer((req, res) => {
    req.resume();
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const task = (status: string) => ({ task_id: 'task_bench_big', status, model: 'omni-image', media_type: 'image', created_at: 1_800_000_000, ...(status === 'completed' ? { data: Array.from({ length: count }, (_, i) => ({ url: `${base}/files/${i}.png` })) } : {}) });
    if (req.method === 'POST') return json(task('pending'));
    if (req.url?.startsWith('/v1/tasks/')) return json(task('completed'));
    if (req.url?.startsWith('/files/')) return streamBytes(res, size, length);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

async function stdioServer(base: string, args: readonly string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [`${ROOT}dist/cli.js`, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', OMNIMEDIA_BASE_URL: base, OMNIMEDIA_API_KEY: 'sk-bench' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return { client, pid: transport.pid as number };
}

const GENERATE = { name: 'generate_image', arguments: { model: 'omni-image', prompt: 'a fox' } };

/** Peak RSS of the server while a 400 MiB result (no Content-Length) is rendered, against its RSS before. */
async function bigResult(): Promise<string[][]> {
  const service = await resultService(1, 400 * MiB, false);
  const { client, pid } = await stdioServer(service.url, ['--wait-ms', '120000']);
  try {
    await sleep(1_000);
    const before = await rssMiB(pid);
    let peak = before;
    let done = false;
    const sampling = (async () => {
      while (!done) {
        peak = Math.max(peak, await rssMiB(pid).catch(() => peak));
        await sleep(20);
      }
    })();
    const started = performance.now();
    const result = await client.callTool(GENERATE, undefined, { timeout: 300_000 });
    const ms = performance.now() - started;
    done = true;
    await sampling;
    if (result.isError) throw new Error(JSON.stringify(result));
    return [['400 MiB result, no Content-Length (embed on)', before.toFixed(1), peak.toFixed(1), `+${(peak - before).toFixed(1)}`, '<= +64', (ms / 1000).toFixed(1)]];
  } finally {
    await client.close();
    await service.close();
  }
}

/** When a plain call with --wait-ms 6000 and four 8 MiB results answers. */
async function fourResults(): Promise<string[][]> {
  const service = await resultService(4, 8 * MiB, true);
  const { client } = await stdioServer(service.url, ['--wait-ms', '6000']);
  try {
    const started = performance.now();
    const result = await client.callTool(GENERATE, undefined, { timeout: 60_000 });
    const ms = performance.now() - started;
    if (result.isError) throw new Error(JSON.stringify(result));
    return [['--wait-ms 6000, four 8 MiB results: the answer after', `${(ms / 1000).toFixed(2)} s`, '<= 6.5 s']];
  } finally {
    await client.close();
    await service.close();
  }
}

/** 200 connect/close cycles of the MCP SDK client over --http (its close() sends no DELETE). */
async function cycles(count = 200): Promise<string[][]> {
  const token = 'bench-token';
  const child = spawn(process.execPath, [`${ROOT}dist/cli.js`, 'mcp', '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', OMNIMEDIA_BASE_URL: 'http://127.0.0.1:9', OMNIMEDIA_API_KEY: 'sk-bench', OMNIMEDIA_MCP_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        const found = /Streamable HTTP at (\S+)/.exec(text)?.[1];
        if (found) resolve(found);
      });
      child.once('exit', () => reject(new Error(`omnimedia mcp --http exited: ${text}`)));
    });
    let served = 0;
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const client = new Client({ name: 'bench', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
        await client.listTools();
        served++;
      } catch {
        // refused: counted as not served
      }
      await client.close();
    }
    const ms = performance.now() - started;
    return [[`${count} connect/close cycles over --http (no DELETE)`, `${served} of ${count} served`, `${(ms / count).toFixed(1)} ms a cycle`]];
  } finally {
    child.kill();
  }
}

export async function mcpLimits(): Promise<BenchTable[]> {
  return [
    {
      title: 'omnimedia mcp: the server\'s memory (RSS, MiB) while a large result is rendered',
      columns: ['case', 'before', 'peak', 'growth', 'target', 'call s'],
      rows: await bigResult(),
      notes: ['The image is refused as it streams past 1 MiB (no Content-Length to refuse it from): linked, not embedded.'],
    },
    { title: 'omnimedia mcp: a plain call ends by waitMs, rendering included', columns: ['case', 'answered after', 'target'], rows: await fourResults() },
    { title: 'omnimedia mcp --http: sessions of clients that close without DELETE', columns: ['case', 'served', 'per cycle'], rows: await cycles() },
  ];
}
