// `omnimedia mcp` as an MCP client starts it: the BUILT bin (dist/cli.js, as npm installs it) as a
// stdio child process of the official SDK's Client, against the mock service on a real local
// HTTP server. Nothing but JSON-RPC on its stdout (the client's parser fails on anything else),
// logs on stderr without the key; `--http` with a token; the MCP SDK loaded only by `mcp`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { buildCli, runProcess } from '../cli/helpers/built-cli.ts';

const KEY = 'sk-stdio/secret+key=0123456789';
let server: MockServer;
let dir: string;
let CLI_PATH: string;
const runBuilt = (args: readonly string[], options: Parameters<typeof runProcess>[2]) => runProcess(process.execPath, [CLI_PATH, ...args], options);

beforeAll(async () => {
  CLI_PATH = await buildCli();
  server = await startMockServer({ durations: { pending: 100, image: 200, imageEdit: 200, video: 300, videoEdit: 300 } });
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-mcp-stdio-'));
  await writeFile(join(dir, 'photo.png'), await readFile(fileURLToPath(new URL('../fixtures/tiny.png', import.meta.url))));
}, 180_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OMNIMEDIA_BASE_URL: server.url, OMNIMEDIA_API_KEY: KEY });

describe('omnimedia mcp over stdio (the built bin)', () => {
  it('lists the tools and runs them; stdout carries JSON-RPC only; stderr has no key; it exits 0 when the client leaves', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'mcp', '--allow-dir', dir], env: env(), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const errors: unknown[] = [];
    const mcp = new Client({ name: 'stdio-test', version: '1.0.0' });
    mcp.onerror = (error) => errors.push(error);
    await mcp.connect(transport);
    const pid = transport.pid;
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(['generate_image', 'edit_image', 'generate_video', 'edit_video', 'upload_file', 'get_task']);
    const made = (await mcp.callTool({ name: 'generate_image', arguments: { model: 'omni-image', prompt: 'a fox' } })) as CallToolResult;
    expect(made.structuredContent).toMatchObject({ status: 'completed' });
    expect(made.content.map((c) => c.type)).toEqual(['text', 'resource_link', 'image']);
    const edited = (await mcp.callTool({ name: 'edit_image', arguments: { model: 'omni-image', prompt: 'night', image: join(dir, 'photo.png') } })) as CallToolResult;
    expect(edited.structuredContent).toMatchObject({ status: 'completed' });
    const refused = (await mcp.callTool({ name: 'edit_image', arguments: { model: 'omni-image', prompt: 'x', image: '/etc/hostname' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    server.mock.forceStatus(401, { count: 1 });
    const denied = (await mcp.callTool({ name: 'generate_image', arguments: { model: 'omni-image', prompt: 'a fox' } })) as CallToolResult;
    expect(denied.content[0]).toMatchObject({ text: expect.stringMatching(/^AuthenticationError: /) });

    await mcp.close();
    expect(errors).toEqual([]);
    expect(stderr).toContain('omnimedia mcp: serving on stdio');
    expect(stderr).not.toContain(KEY);
    expect(stderr).not.toContain(encodeURIComponent(KEY));
    // The client closed stdin: the server is gone.
    await expect.poll(() => { try { process.kill(pid!, 0); return true; } catch { return false; } }).toBe(false);
  }, 90_000);

  it('mcp --help on stdout; --http without OMNIMEDIA_MCP_TOKEN refused (exit 2)', async () => {
    const help = await runBuilt(['mcp', '--help'], { env: env() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--allow-dir DIR');
    const noToken = await runBuilt(['mcp', '--http', '--port', '0'], { env: env() });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('--http needs OMNIMEDIA_MCP_TOKEN');
    expect(noToken.stdout).toBe('');
  }, 60_000);

  it('--http: the URL on stderr, the token required, Ctrl-C stops it', async () => {
    let url = '';
    let client: Client | undefined;
    const run = runBuilt(['mcp', '--http', '--port', '0'], {
      env: { ...env(), OMNIMEDIA_MCP_TOKEN: 'tok-e2e' },
      onStderr: (text, child) => {
        const found = /Streamable HTTP at (\S+)/.exec(text)?.[1];
        if (!found || url) return;
        url = found;
        void (async () => {
          client = new Client({ name: 'http-test', version: '1.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer tok-e2e' } } }));
          const { tools } = await client.listTools();
          expect(tools).toHaveLength(6);
          expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(401);
          await client.close();
          child.kill('SIGINT');
        })();
      },
    });
    const done = await run;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('');
  }, 60_000);

  it('--json: a usage error on stderr only (stdout is the JSON-RPC channel)', async () => {
    const run = await runBuilt(['mcp', '--json'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--json');
  }, 60_000);

  it.each([
    ['/', '/'],
    ['the home directory', 'HOME'],
  ])('started in %s without --allow-dir: no local files (refused as an implicit default), said on stderr', async (_what, where) => {
    const home = await mkdtemp(join(tmpdir(), 'omnimedia-mcp-home-'));
    const cwd = where === 'HOME' ? home : where;
    const child = spawn(process.execPath, [CLI_PATH, 'mcp'], { cwd, env: { ...env(), HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const [code] = (await once(child, 'close')) as [number];
    await rm(home, { recursive: true, force: true });
    expect(code).toBe(0);
    expect(stderr).toContain(`the working directory (${cwd}) is too wide to allow by default: no local files; pass --allow-dir DIR`);
    expect(stderr).not.toContain('local files from');
  }, 60_000);

  it('the bin loads omnimedia/mcp and the MCP SDK only in the mcp command', async () => {
    const bin = await readFile(CLI_PATH, 'utf8');
    expect(bin).not.toMatch(/^[ \t]*import\b[^(\n]*?["'](@modelcontextprotocol\/|omnimedia\/mcp)/m);
    expect(bin).toContain('await import("omnimedia/mcp")');
    expect(bin).toContain('await import("@modelcontextprotocol/sdk/server/stdio.js")');
  });
});
