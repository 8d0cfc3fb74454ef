// `omnimedia mcp --http`'s sessions: the MCP SDK client's close() sends no DELETE, so a session
// ends when it goes idle (nothing open, nothing asked for the idle time), and the cap of 100
// counts live sessions only: connect/close cycles past the cap are all served.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { createMcpServer } from 'omnimedia/mcp';
import { serveMcpHttp, type McpHttp } from '../../src/cli/mcp-http.ts';
import { TOKEN } from './helpers.ts';

let http: McpHttp | undefined;
afterEach(async () => {
  await http?.close();
});

const client = new OmniMedia({ apiKey: 'sk-sessions', baseURL: 'http://127.0.0.1:9', logLevel: 'off' });
const serve = (options: { sessionIdleMs?: number } = {}) => serveMcpHttp({ port: 0, token: TOKEN, createServer: () => createMcpServer({ client }), ...options });

async function connect(url: string): Promise<Client> {
  const mcp = new Client({ name: 'sessions-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return mcp;
}

const JSON_RPC = { authorization: `Bearer ${TOKEN}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** A session opened by hand (no stream of its own): the headers its requests carry. */
async function rawSession(url: string): Promise<{ authorization: string; 'mcp-session-id': string; 'mcp-protocol-version': string }> {
  const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const response = await fetch(url, { method: 'POST', headers: JSON_RPC, body: JSON.stringify(initialize) });
  await response.text();
  const headers = { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': response.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
  await (await fetch(url, { method: 'POST', headers: { ...JSON_RPC, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return headers;
}

describe('--http sessions', () => {
  it('120 connect/close cycles of the MCP SDK client (no DELETE), past the cap of 100: every one served', async () => {
    http = await serve();
    for (let i = 0; i < 120; i++) {
      const mcp = await connect(http.url);
      expect((await mcp.listTools()).tools).toHaveLength(6);
      await mcp.close();
    }
  }, 120_000);

  it('a session idle for the idle time is gone (404: start a new one); one in use stays', async () => {
    http = await serve({ sessionIdleMs: 200 });
    const idle = await connect(http.url);
    const idleId = (idle.transport as StreamableHTTPClientTransport).sessionId!;
    // A client that drops its stream and asks nothing more: idle.
    await idle.close();
    const ask = (sessionId: string) =>
      fetch(http!.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }).then(async (response) => (await response.body?.cancel(), response.status));
    // Each ask is activity: asked less often than the idle time, the session is found gone.
    await expect.poll(() => ask(idleId), { timeout: 10_000, interval: 1_000 }).toBe(404);
    // A session with its stream open is live however long it says nothing: the stream is
    // known open once its headers came back.
    const headers = await rawSession(http.url);
    const stream = new AbortController();
    const open = await fetch(http.url, { headers: { ...headers, accept: 'text/event-stream' }, signal: stream.signal });
    expect(open.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await ask(headers['mcp-session-id'])).toBe(200);
    stream.abort();
  }, 30_000);
});
