// `omnimedia mcp`: what a tool call costs an agent on top of the SDK call it makes, and the
// memory of an idle server. The built bin runs over stdio as a child of the official MCP
// Client (as Claude Desktop runs it); `get_task` with `wait: false` (one task query, the result
// built) against `client.tasks.retrieve` of the same task from this process, both to the same
// service stand-in in a third process. Median of 200 calls each, interleaved in rounds. Memory:
// the server's RSS once connected and idle, against a bare `node` process's in the same run.
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { OmniMedia } from 'omnimedia';
import type { BenchTable } from '../run.ts';
import { median } from '../lib/stats.ts';
import { mcpLimits } from '../helpers/mcp-limits.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CALLS = Number(process.env.MCP_CALLS ?? 200);
const ROUNDS = 10;
const WARMUP = 50;
const TASK_ID = 'task_bench_1';
const IDLE_MS = 2_000;

/** Resident memory of a process, MiB (Linux: /proc). */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timeEach(call: () => Promise<unknown>, count: number, into: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    into.push((performance.now() - started) * 1000);
  }
}

export default async function mcp(): Promise<BenchTable[]> {
  const service = fork(new URL('../servers/api-server.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    const [{ port }] = (await once(service, 'message')) as [{ port: number }];
    const base = `http://127.0.0.1:${port}`;
    const direct = new OmniMedia({ baseURL: base, apiKey: 'sk-bench', logLevel: 'off' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [`${ROOT}dist/cli.js`, 'mcp', '--no-embed'],
      env: { PATH: process.env.PATH ?? '', OMNIMEDIA_BASE_URL: base, OMNIMEDIA_API_KEY: 'sk-bench' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid as number;
    await client.listTools();
    await sleep(IDLE_MS);
    const idle = await rssMiB(pid);
    const bareIdle = await rssMiB(bare.pid as number);
    const sdkOnly = new StdioClientTransport({ command: process.execPath, args: [fileURLToPath(new URL('../helpers/bare-mcp-server.ts', import.meta.url))], stderr: 'ignore' });
    const sdkClient = new Client({ name: 'bench', version: '1.0.0' });
    await sdkClient.connect(sdkOnly);
    await sdkClient.listTools();
    await sleep(IDLE_MS);
    const sdkIdle = await rssMiB(sdkOnly.pid as number);
    await sdkClient.close();

    const viaMcp = async () => {
      const result = await client.callTool({ name: 'get_task', arguments: { task_id: TASK_ID, wait: false } });
      if (result.isError) throw new Error(JSON.stringify(result));
    };
    const viaSdk = () => direct.tasks.retrieve(TASK_ID);
    await timeEach(viaMcp, WARMUP, []);
    await timeEach(viaSdk, WARMUP, []);
    const mcpTimes: number[] = [];
    const sdkTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so machine noise hits both alike.
      const [first, second] = round % 2 ? [() => timeEach(viaSdk, CALLS / ROUNDS, sdkTimes), () => timeEach(viaMcp, CALLS / ROUNDS, mcpTimes)] : [() => timeEach(viaMcp, CALLS / ROUNDS, mcpTimes), () => timeEach(viaSdk, CALLS / ROUNDS, sdkTimes)];
      await first();
      await second();
    }
    const after = await rssMiB(pid);
    await client.close();

    const mcpMedian = median(mcpTimes);
    const sdkMedian = median(sdkTimes);
    return [
      {
        title: `omnimedia mcp: a tool call over stdio against the SDK call it makes (get_task wait:false vs tasks.retrieve, median of ${mcpTimes.length})`,
        columns: ['case', 'median µs', 'overhead µs', 'ratio'],
        rows: [
          ['client.tasks.retrieve (in process)', sdkMedian.toFixed(0), '', '1.00x'],
          ['get_task over stdio (MCP Client -> omnimedia mcp)', mcpMedian.toFixed(0), (mcpMedian - sdkMedian).toFixed(0), `${(mcpMedian / sdkMedian).toFixed(2)}x`],
        ],
        notes: ['The overhead: two JSON-RPC messages through pipes, the MCP SDK on both sides, the tool result built (text, links).'],
      },
      {
        title: 'omnimedia mcp: memory of the server process (RSS)',
        columns: ['process', 'RSS MiB'],
        rows: [
          ['node -e (idle, the anchor)', bareIdle.toFixed(1)],
          ['the MCP SDK alone: McpServer on stdio, one tool, idle', sdkIdle.toFixed(1)],
          [`omnimedia mcp, connected and idle ${IDLE_MS / 1000} s`, idle.toFixed(1)],
          [`omnimedia mcp, after ${WARMUP + mcpTimes.length} tool calls`, after.toFixed(1)],
        ],
      },
      ...(await mcpLimits()),
    ];
  } finally {
    bare.kill();
    if (service.connected) service.disconnect();
  }
}
