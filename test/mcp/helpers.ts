// The MCP server over its real Streamable HTTP transport (the CLI's `--http` server, on a free
// loopback port), the official SDK's Client, and the mock service behind the server's client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OmniMedia, type ClientOptions } from 'omnimedia';
import { createMcpServer, type McpServerOptions } from 'omnimedia/mcp';
import { createMockService, type MockService, type MockServiceOptions } from 'omnimedia/testing';
import { serveMcpHttp } from '../../src/cli/mcp-http.ts';
import { holdFakeTime } from '../helpers/clock.ts';

// Characters that percent-encoding and base64 change, so that each form of the key is searched for.
export const API_KEY = 'sk-mcp/secret+key=0123456789abcdef';
export const TOKEN = 'mcp-token-for-tests';

export interface Harness {
  mock: MockService;
  client: OmniMedia;
  url: string;
  /** Every JSON-RPC message both ways, as the bytes on the wire, for searching. */
  wire: string[];
  connect(options?: { headers?: Record<string, string> }): Promise<Client>;
  close(): Promise<void>;
}

/**
 * `inner`, recording every request and response body (SSE included) in `wire`, or (without
 * `wire`: the service's requests, answered in process) holding fake time still from each
 * request until its response body has been read (test/helpers/clock.ts). An MCP request must
 * not hold it: its answer may wait for fake time (a call waiting up to waitMs).
 */
export function trackedFetch(inner: typeof fetch, wire?: string[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string') wire?.push(init.body);
    const release = wire ? () => {} : holdFakeTime();
    try {
      const response = await inner(input, init);
      if (!response.body) {
        release();
        return response;
      }
      const [mine, theirs] = response.body.tee();
      void new Response(mine).text().then(
        (text) => {
          wire?.push(text);
          release();
        },
        release,
      );
      return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (error) {
      release();
      throw error;
    }
  };
}

/** The mock, a client on it (no network: `mock.fetch`), and an MCP server on HTTP for that client. */
export async function startHarness(
  options: { mock?: MockServiceOptions; client?: ClientOptions; server?: Omit<McpServerOptions, 'client'> } = {},
): Promise<Harness> {
  const mock = createMockService({ callbackRetryDelays: [], ...options.mock });
  const client = new OmniMedia({ apiKey: API_KEY, baseURL: mock.baseURL, fetch: trackedFetch(mock.fetch), logLevel: 'off', ...options.client });
  // An hour's waitMs unless a test names one: a call's rendering ends by waitMs, and in fake time
  // a loaded machine's real work (files written, PNGs read) can let many seconds pass.
  const http = await serveMcpHttp({ port: 0, token: TOKEN, createServer: () => createMcpServer({ client, waitMs: 3_600_000, ...options.server }) });
  const wire: string[] = [];
  const clients: Client[] = [];
  return {
    mock,
    client,
    url: http.url,
    wire,
    async connect({ headers = {} } = {}) {
      const mcp = new Client({ name: 'omnimedia-tests', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}`, ...headers } },
        fetch: trackedFetch(fetch, wire),
      });
      await mcp.connect(transport);
      clients.push(mcp);
      return mcp;
    },
    async close() {
      await Promise.all(clients.map((mcp) => mcp.close().catch(() => {})));
      await http.close();
      mock.close();
    },
  };
}

/**
 * The MCP client's request timeout in these tests: an hour. Fake time moves on while a request
 * and its answer cross the loopback (holding it then would stall a call that waits on fake
 * time), so on a loaded machine the client's own 60 s could run out of fake time it never waited.
 */
export const LONG = { timeout: 3_600_000 };

/** A tool call without task augmentation. */
export async function call(mcp: Client, name: string, args: Record<string, unknown>, options: Parameters<Client['callTool']>[2] = {}): Promise<CallToolResult> {
  return (await mcp.callTool({ name, arguments: args }, CallToolResultSchema, { ...LONG, ...options })) as CallToolResult;
}

/** A task-augmented tool call: the CreateTaskResult. */
export function callAsTask(mcp: Client, name: string, args: Record<string, unknown>, options: Parameters<Client['request']>[2] = {}) {
  return mcp.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 600_000 } } }, CreateTaskResultSchema, { ...LONG, ...options });
}

/** The text of a tool result's first block. */
export const textOf = (result: CallToolResult): string => (result.content[0] as { text?: string } | undefined)?.text ?? '';

/** The mock's requests of one kind: `POST /v1/images/generations`, `GET /v1/tasks/<id>`. */
export const requestsTo = (mock: MockService, method: string, path: string | RegExp): number =>
  mock.requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path))).length;

/** Submissions the mock received (every submission endpoint). */
export const submissions = (mock: MockService): number => requestsTo(mock, 'POST', /^\/v1\/(images\/(generations|edits)|video\/(generate|edits))$/);
