import { homedir } from 'node:os';
import { parse, resolve } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServerOptions } from 'omnimedia/mcp';
import { CONNECTION_OPTIONS, UsageError, listValue, stringValue } from '../args.ts';
import type { Context } from '../context.ts';
import { EXIT } from '../exit.ts';
import { terminalText } from '../terminal-text.ts';
import { serveMcpHttp } from '../mcp-http.ts';
import type { Command } from './command.ts';

const SDK = '@modelcontextprotocol/sdk';

/** omnimedia/mcp, which loads the MCP SDK (an optional peer): a clear error when it is not installed. */
async function loadMcp(): Promise<typeof import('omnimedia/mcp')> {
  try {
    return await import('omnimedia/mcp');
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(SDK))
      throw new UsageError(
        `omnimedia mcp needs the MCP SDK beside omnimedia: npm install ${SDK} (or run npx -y -p omnimedia -p ${SDK} omnimedia mcp)`,
      );
    throw error;
  }
}

/** A whole number of ms, or a usage error naming the flag. */
function wholeNumber(ctx: Context, name: string, min: number, max: number): number | undefined {
  const text = stringValue(ctx.values, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) throw new UsageError(`--${name}: must be a whole number from ${min} to ${max} (got "${text}")`, `--${name}`);
  return value;
}

/**
 * The allowed directory when no `--allow-dir` is given: the working directory, unless it is the
 * root or the home directory (desktop clients often start servers in `/`; either would let an
 * agent upload any file of the user's): then none, and a line on stderr says so.
 */
export function implicitAllowedDir(cwd: string, home: string): { dirs: string[]; line: string } {
  const here = resolve(cwd);
  if (here === parse(here).root || here === resolve(home))
    return { dirs: [], line: `omnimedia mcp: the working directory (${here}) is too wide to allow by default: no local files; pass --allow-dir DIR` };
  return { dirs: [here], line: `omnimedia mcp: local files from ${here} (the working directory; --allow-dir DIR sets others)` };
}

/** Until stdin ends (the client left) or Ctrl-C/SIGTERM. */
function untilDone(ctx: Context, stdin?: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    stdin?.once('end', () => resolve());
    stdin?.once('close', () => resolve());
  });
}

export const mcp: Command = {
  spec: {
    name: 'mcp',
    summary: "Run an MCP server for AI agents (Claude Desktop, Cursor, VS Code...): its tools are the service's tasks.",
    usage: '[--http [--port PORT]] [options]',
    options: {
      http: { type: 'boolean', description: 'Streamable HTTP on 127.0.0.1 instead of stdio; clients send Authorization: Bearer $OMNIMEDIA_MCP_TOKEN' },
      port: { type: 'string', value: 'PORT', description: 'With --http: the port (default 3333; 0 picks a free one)' },
      'allow-dir': { type: 'string', multiple: true, value: 'DIR', description: 'A directory whose files the tools may upload (default: the working directory, unless it is / or the home directory)' },
      'download-dir': { type: 'string', value: 'DIR', description: 'Save every result file in DIR too (linked as file://)' },
      'no-embed': { type: 'boolean', description: 'Link image results only, do not embed them' },
      'wait-ms': { type: 'string', value: 'MS', description: 'How long a call without MCP task support waits before it returns the running task (default 50000)' },
      'image-model': { type: 'string', value: 'MODEL', description: 'The image model when the agent names none' },
      ...CONNECTION_OPTIONS,
    },
    notes: [
      'Over stdio nothing but JSON-RPC is written to stdout; logs go to stderr.',
      `Needs ${SDK} beside omnimedia (an optional peer). See docs/agents.md for Claude Desktop, Cursor and VS Code.`,
    ],
    examples: [
      'omnimedia mcp',
      'omnimedia mcp --allow-dir ~/Pictures --download-dir ~/Pictures/generated',
      'OMNIMEDIA_MCP_TOKEN=$(openssl rand -hex 32) omnimedia mcp --http --port 3333',
    ],
  },
  async run(ctx) {
    const http = ctx.values.http === true;
    const port = wholeNumber(ctx, 'port', 0, 65_535) ?? 3333;
    if (!http && stringValue(ctx.values, 'port') !== undefined) throw new UsageError('--port: only with --http', '--port');
    const waitMs = wholeNumber(ctx, 'wait-ms', 1, 3_600_000);
    const token = ctx.io.env.OMNIMEDIA_MCP_TOKEN?.trim();
    if (http && !token)
      throw new UsageError('--http needs OMNIMEDIA_MCP_TOKEN: the bearer token every client must send (e.g. OMNIMEDIA_MCP_TOKEN=$(openssl rand -hex 32))');
    const allowed = listValue(ctx.values, 'allow-dir');
    const downloadDir = stringValue(ctx.values, 'download-dir');
    const imageModel = stringValue(ctx.values, 'image-model');
    const implicit = allowed.length > 0 ? undefined : implicitAllowedDir(process.cwd(), homedir());
    const options: McpServerOptions = {
      client: ctx.client(),
      allowedDirs: allowed.length > 0 ? allowed : (implicit?.dirs ?? []),
      embedImages: ctx.values['no-embed'] !== true,
      ...(downloadDir !== undefined ? { downloadDir } : {}),
      ...(waitMs !== undefined ? { waitMs } : {}),
      ...(imageModel !== undefined ? { imageModel } : {}),
    };
    const { createMcpServer } = await loadMcp();
    const create = (): McpServer => createMcpServer(options);
    // Paths and addresses are shown, never interpreted by the terminal.
    const log = (line: string) => ctx.io.stderr.write(`${terminalText(line)}\n`);
    if (!ctx.client().hasApiKey) log('omnimedia mcp: no API key (OMNIMEDIA_API_KEY or --api-key): get_task works, submissions and uploads will fail');
    log(implicit?.line ?? `omnimedia mcp: local files from ${(options.allowedDirs ?? []).join(', ')}`);

    if (http) {
      const served = await serveMcpHttp({ port, token: token as string, createServer: create });
      log(`omnimedia mcp: Streamable HTTP at ${served.url} (Authorization: Bearer $OMNIMEDIA_MCP_TOKEN). Ctrl-C stops it.`);
      await untilDone(ctx);
      await served.close();
      return EXIT.ok;
    }
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const server = create();
    // stdout is the JSON-RPC channel, the transport's alone.
    await server.connect(new StdioServerTransport(process.stdin, process.stdout));
    log('omnimedia mcp: serving on stdio');
    await untilDone(ctx, process.stdin);
    await server.close();
    return EXIT.ok;
  },
};
