// A service stand-in on a real loopback socket that answers only when a test says so: an upload
// held while the agent cancels, a submission whose answer comes after a cancel or never (the
// connection reset after the POST), results of any size or number. The MCP server's client talks
// to it through Node's fetch; the MCP SDK's real Client talks to the server over --http.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OmniMedia, type ClientOptions } from 'omnimedia';
import { createMcpServer, type McpServerOptions } from 'omnimedia/mcp';
import { serveMcpHttp } from '../../src/cli/mcp-http.ts';
import { TOKEN } from './helpers.ts';

/** One request the service received: answer it (`res`) now, later or never. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  res: ServerResponse;
  /** Resolves when the client went away before the answer ended (an aborted request). */
  gone: Promise<void>;
  /** Whether the client went away before the answer ended. */
  isGone(): boolean;
}

/** What the service does with a request; `undefined` holds it (the test answers through `next`). */
export type Answer = (request: Received) => void | 'hold';

export interface HostileService {
  url: string;
  received: Received[];
  /** Set how requests are answered (held by default). */
  answer(with_: Answer): void;
  /** The next request (or one already received and not taken) matching method and path. */
  next(method: string, path: RegExp): Promise<Received>;
  close(): Promise<void>;
}

export async function startHostileService(): Promise<HostileService> {
  let answer: Answer = () => 'hold';
  const received: Received[] = [];
  const taken = new Set<Received>();
  const waiting: { method: string; path: RegExp; resolve: (r: Received) => void }[] = [];
  const sockets = new Set<Socket>();
  const offer = (request: Received) => {
    const i = waiting.findIndex((w) => w.method === request.method && w.path.test(request.path));
    if (i < 0) return;
    taken.add(request);
    waiting.splice(i, 1)[0]!.resolve(request);
  };
  const server = createServer((req, res) => {
    req.resume();
    let gone = false;
    let left: () => void = () => {};
    const request: Received = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      res,
      gone: new Promise<void>((resolve) => (left = resolve)),
      isGone: () => gone,
    };
    res.on('close', () => {
      if (res.writableFinished) return;
      gone = true;
      left();
    });
    received.push(request);
    req.on('end', () => {
      if (answer(request) !== 'hold') return;
      offer(request);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer(next) {
      answer = next;
    },
    next(method, path) {
      const ready = received.find((r) => !taken.has(r) && r.method === method && path.test(r.path) && !r.res.headersSent);
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiting.push({ method, path, resolve }));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answer `res` with JSON. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A task as the service answers it. */
export const taskBody = (taskId: string, status: string, urls: readonly string[] = []) => ({
  task_id: taskId,
  status,
  model: 'omni-image',
  media_type: 'image',
  created_at: 1_800_000_000,
  ...(urls.length > 0 ? { data: urls.map((url) => ({ url })) } : {}),
});

/** The MCP server (over --http, its own port) on a client of `service`, and the MCP SDK's Client on it. */
export async function mcpOn(service: HostileService, options: { server?: Omit<McpServerOptions, 'client'>; client?: ClientOptions } = {}) {
  const client = new OmniMedia({ apiKey: 'sk-hostile', baseURL: service.url, logLevel: 'off', maxRetries: 0, ...options.client });
  const http = await serveMcpHttp({ port: 0, token: TOKEN, createServer: () => createMcpServer({ client, ...options.server }) });
  const clients: Client[] = [];
  return {
    client,
    url: http.url,
    async connect(): Promise<Client> {
      const mcp = new Client({ name: 'hostile-tests', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
      clients.push(mcp);
      return mcp;
    },
    async close() {
      await Promise.all(clients.map((mcp) => mcp.close().catch(() => {})));
      await http.close();
    },
  };
}

/**
 * Serve `size` bytes that start with `head` (a real file's first bytes, so the type is sniffed),
 * with or without Content-Length, as fast as the socket takes them; resolves with the bytes
 * written when the body ended or the client left.
 */
export function serveBytes(res: ServerResponse, size: number, head: Uint8Array, options: { contentLength?: boolean; contentType?: string } = {}): Promise<number> {
  res.writeHead(200, { 'content-type': options.contentType ?? 'image/png', ...(options.contentLength === false ? {} : { 'content-length': String(size) }) });
  const chunk = new Uint8Array(64 * 1024);
  let written = 0;
  return new Promise((resolve) => {
    res.on('close', () => resolve(written));
    const pump = () => {
      while (!res.destroyed && written < size) {
        const piece = written === 0 ? Buffer.concat([head, chunk]).subarray(0, Math.min(size, chunk.length)) : chunk.subarray(0, Math.min(chunk.length, size - written));
        written += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
}
