// node:http and node:crypto are loaded when the server starts, not with the CLI: an ES import of
// node:http reads its lazy exports (WebSocket...), which load undici: +17 MiB of RSS for every
// command (`omnimedia --version` 62 MiB, 46 without).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Live MCP sessions at most; past it a new one gets 503 (each holds a server and its tasks). */
const MAX_SESSIONS = 100;
/**
 * A session with no request or stream open for this long ends (its server closes, its MCP
 * tasks go): the MCP SDK client's close() sends no DELETE, and such sessions would fill the cap
 * (100 ordinary connect/close cycles made the server refuse every new one). 10 minutes: a
 * client following a task asks every 2 s, and a connected SDK client keeps its stream open.
 */
export const SESSION_IDLE_MS = 600_000;
/** A JSON-RPC body larger than this is refused (413) before it is parsed. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The MCP endpoint's path. */
export const MCP_PATH = '/mcp';

/** A running `omnimedia mcp --http`. */
export interface McpHttp {
  url: string;
  close(): Promise<void>;
}

/** One MCP session: its transport and server, the requests and streams it has open, when it was last seen. */
interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  open: number;
  lastSeen: number;
}

/** Whether `Authorization: <header>` is `Bearer <token>`, compared in constant time. */
async function tokenCheck(token: string): Promise<(header: string | undefined) => boolean> {
  const { createHash, timingSafeEqual } = await import('node:crypto');
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = digest(token);
  return (header) => {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    return given !== undefined && timingSafeEqual(digest(given), expected);
  };
}

/** A refusal as JSON-RPC says it (no id: the request was not read), with the HTTP status. */
function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

/**
 * Streamable HTTP on 127.0.0.1 only, at `/mcp`: a server per session. Before any request
 * reaches the MCP SDK (so before any tool runs), a `Host` other than this address and a
 * cross-site `Origin` are refused (403: DNS rebinding, a web page in the user's browser), then
 * a missing or wrong bearer token (401).
 */
export async function serveMcpHttp(options: { port: number; token: string; createServer: () => McpServer; sessionIdleMs?: number }): Promise<McpHttp> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const { createServer } = await import('node:http');
  const hasToken = await tokenCheck(options.token);
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? SESSION_IDLE_MS;
  /** A session is live while a request or stream of it is open; quiet, it ends after the idle time. */
  const quiet = (session: Session) => session.open === 0;
  const end = (session: Session) => void session.transport.close().catch(() => {});
  // Idle sessions end; the sweep holds no process open.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const session of sessions.values()) if (quiet(session) && now - session.lastSeen >= idleMs) end(session);
  }, Math.max(50, Math.min(idleMs / 4, 60_000)));
  sweep.unref();
  /** At the cap, the session quiet longest (nothing open) makes room: the cap counts live sessions. */
  const makeRoom = (): boolean => {
    if (sessions.size < MAX_SESSIONS) return true;
    let oldest: Session | undefined;
    for (const session of sessions.values()) if (quiet(session) && (!oldest || session.lastSeen < oldest.lastSeen)) oldest = session;
    if (!oldest) return false;
    sessions.delete(oldest.id);
    end(oldest);
    return true;
  };
  /** Count `res` open on `session` until it closes. */
  const track = (session: Session, res: ServerResponse) => {
    session.open++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  };
  let port = options.port;
  const own = () => [`127.0.0.1:${port}`, `localhost:${port}`];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== MCP_PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    if (!own().includes(req.headers.host ?? '')) return refuse(res, 403, 'Forbidden: this server answers on its loopback address only');
    const origin = req.headers.origin;
    if (origin !== undefined && !own().some((host) => origin === `http://${host}`)) return refuse(res, 403, 'Forbidden: cross-site request');
    if (!hasToken(req.headers.authorization))
      return refuse(res, 401, 'Unauthorized: send Authorization: Bearer <OMNIMEDIA_MCP_TOKEN>', { 'www-authenticate': 'Bearer' });
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return refuse(res, 404, 'Session not found: start a new one');
      track(session, res);
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'Bad request: no session (start one with initialize)');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return refuse(res, 400, 'Bad request: no session (start one with initialize)');
    if (!makeRoom()) return refuse(res, 503, 'Too many sessions', { 'retry-after': '10' });
    const server = options.createServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        const session: Session = { id, transport, server, open: 0, lastSeen: Date.now() };
        sessions.set(id, session);
        track(session, res);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId && sessions.get(transport.sessionId)?.transport === transport) sessions.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const status = (error as { status?: number }).status ?? 400;
      refuse(res, status, status === 413 ? 'Payload too large' : 'Bad request: the body is not JSON');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, '127.0.0.1', () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
