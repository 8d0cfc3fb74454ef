// The proxy's tests run it on real servers on loopback: `node:http` with `nodeHandler` (the raw
// target) or @hono/node-server with `handler` (a fetch Request), in front of the mock service or
// of hostile upstreams, and talk to it over raw sockets where a client library would tidy the
// request up first.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createProxy, type ProxyOptions } from 'omnimedia/proxy';

/** The key the proxy holds: a '/' in it, so a JSON `\/` escape of it is a different string. */
export const KEY = 'sk-live/SECRET+key=0123456789abcdef';
/** A base64 of it, in case an echo encodes it. */
export const KEY_FORMS = [KEY, KEY.replaceAll('/', '\\/'), encodeURIComponent(KEY), Buffer.from(KEY).toString('base64')];

/** The app's session cookie, which `authorize` reads. */
export const SESSION = 'session=alice-session-token';
/** An `authorize` that knows one user by the session cookie. */
export const authorizeBySession: ProxyOptions['authorize'] = (request) =>
  (request.headers.get('cookie') ?? '').includes(SESSION) ? { id: 'alice' } : null;

/**
 * Where the proxy runs: `nodeHandler` on node:http, `handler` on @hono/node-server, or
 * `handler` in a Worker in workerd (workerd.ts; only options that JSON can carry, and the
 * session cookie's `authorize`).
 */
export type Mode = 'node' | 'fetch' | 'workerd';

/** The modes every attack runs in. `OMNIMEDIA_PROXY_MODES=workerd` narrows them (the tarball's run, test/package/run.sh). */
export const MODES: Mode[] = (process.env.OMNIMEDIA_PROXY_MODES?.split(',') as Mode[] | undefined) ?? ['node', 'fetch', 'workerd'];

let workerScript: Promise<string> | undefined;

/** The proxy in a Worker in workerd, with `options` as JSON: a function among them cannot go there. */
async function startInWorkerd(options: Partial<ProxyOptions>): Promise<RunningProxy> {
  const { bundleWorker, startWorker } = await import('./workerd.ts');
  const carried = Object.entries(options).filter(([name]) => name !== 'logger');
  const functions = carried.filter(([, value]) => typeof value === 'function' || (typeof value === 'object' && value !== null && !Array.isArray(value) && holdsFunction(value)));
  if (functions.length) throw new Error(`the workerd mode cannot carry ${functions.map(([key]) => key).join(', ')} into the Worker`);
  workerScript ??= bundleWorker(fileURLToPath(new URL('./workerd-worker.ts', import.meta.url)));
  const worker = await startWorker(await workerScript, { OPTIONS: JSON.stringify(Object.fromEntries(carried)), SESSION });
  return { url: worker.url, port: worker.port, logs: worker.logs, close: worker.close };
}

/** An object that holds a function (a port such as a coordination): not JSON. */
function holdsFunction(value: object): boolean {
  return Object.values(value).some((inner) => typeof inner === 'function' || (typeof inner === 'object' && inner !== null && holdsFunction(inner)));
}

export interface RunningProxy {
  url: string;
  port: number;
  close: () => Promise<void>;
  /** What the proxy logged, every level. */
  logs: string[];
}

function listening(server: Server): Promise<number> {
  return new Promise((resolve) => {
    if (server.listening) resolve((server.address() as AddressInfo).port);
    else server.once('listening', () => resolve((server.address() as AddressInfo).port));
  });
}

/** A proxy on its own loopback server, with a logger that keeps every line. */
export async function startProxy(options: Partial<ProxyOptions> & { upstream: string }, mode: Mode = 'node'): Promise<RunningProxy> {
  const logs: string[] = [];
  const keep = (level: string) => (message: string, ...args: unknown[]) => void logs.push(`${level} ${message} ${args.map(String).join(' ')}`);
  const { upstream, ...rest } = options;
  if (mode === 'workerd') return startInWorkerd({ apiKey: KEY, baseURL: upstream, basePath: '/api/omnimedia', ...rest });
  const proxy = createProxy({
    apiKey: KEY,
    baseURL: upstream,
    basePath: '/api/omnimedia',
    authorize: authorizeBySession,
    logger: { error: keep('error'), warn: keep('warn'), info: keep('info'), debug: keep('debug') },
    ...rest,
  });
  let server: Server;
  if (mode === 'node') {
    server = createServer((req, res) => proxy.nodeHandler(req, res));
    server.listen(0, '127.0.0.1');
  } else server = serve({ fetch: proxy.handler, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }) as Server;
  const port = await listening(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    logs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** One request as a recording server saw it. */
export interface Recorded {
  method: string;
  target: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The body ended as declared (not cut off). */
  complete: boolean;
  /** The request is over: ended, or cut off. */
  closed: boolean;
}

/**
 * A loopback server that records every request and answers with `answer` (default: echo the
 * request's headers in a 200 JSON body). The "elsewhere" server of the relay tests (routes.test.ts), and the
 * echoing upstream of the key tests (upstream.test.ts).
 */
export async function startRecorder(answer?: (request: Recorded, res: ServerResponse) => void) {
  const requests: Recorded[] = [];
  let respond = answer ?? ((request: Recorded, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ headers: request.headers })));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const record: Recorded = { method: req.method ?? '', target: req.url ?? '', headers: req.headers, body: Buffer.alloc(0), complete: false, closed: false };
    requests.push(record);
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => {});
    req.on('end', () => {
      record.body = Buffer.concat(chunks);
      record.complete = true;
      respond(record, res);
    });
    req.on('close', () => {
      if (!record.complete) record.body = Buffer.concat(chunks);
      record.closed = true;
    });
  });
  server.listen(0, '127.0.0.1');
  const port = await listening(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    answer(next: (request: Recorded, res: ServerResponse) => void) {
      respond = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP answer as read off a raw socket. */
export interface RawAnswer {
  status: number;
  statusLine: string;
  headers: Record<string, string[]>;
  body: string;
  /** Everything the socket received. */
  raw: string;
}

function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString(), 16);
    if (!size) break;
    out.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * Whether `raw` holds a whole final answer (after any 1xx): its Content-Length of body, or a
 * chunked body's last chunk. A close-delimited one is whole when the server closes.
 */
function wholeAnswer(raw: Buffer): boolean {
  for (let at = 0; ; ) {
    const headEnd = raw.indexOf('\r\n\r\n', at);
    if (headEnd === -1) return false;
    const head = raw.subarray(at, headEnd).toString('latin1');
    const status = Number(head.split(' ')[1]);
    if (status >= 100 && status < 200) {
      at = headEnd + 4;
      continue;
    }
    const body = raw.subarray(headEnd + 4);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
    if (length !== undefined) return body.length >= Number(length);
    if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) return body.toString('latin1').startsWith('0\r\n\r\n') || body.toString('latin1').endsWith('\r\n0\r\n\r\n');
    return false;
  }
}

/**
 * Send `request` (the whole HTTP/1.1 text, as is) on a fresh socket; read until the answer is
 * whole or the server closes (workerd keeps a connection open a while after `Connection: close`).
 */
export function rawRequest(port: number, request: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (wholeAnswer(Buffer.concat(chunks))) socket.destroy();
    });
    socket.on('error', reject);
    // A hang guard: a file in one-byte chunks took over 10 s at a load of 25.
    socket.setTimeout(60_000, () => socket.destroy(new Error('raw request: no answer within 60 s')));
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf('\r\n\r\n');
      const head = raw.subarray(0, headEnd === -1 ? raw.length : headEnd).toString('latin1');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string[]> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        const name = line.slice(0, at).trim().toLowerCase();
        (headers[name] ??= []).push(line.slice(at + 1).trim());
      }
      let body: Buffer = headEnd === -1 ? Buffer.alloc(0) : raw.subarray(headEnd + 4);
      if (headers['transfer-encoding']?.includes('chunked')) body = dechunk(body);
      resolve({ status: Number(statusLine.split(' ')[1]), statusLine, headers, body: body.toString('utf8'), raw: raw.toString('latin1') });
    });
    socket.write(request);
  });
}

/** A GET over a raw socket, the target exactly as given. */
export const rawGet = (port: number, target: string, headers: string[] = [`Cookie: ${SESSION}`]) =>
  rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n`);

/** A POST over a raw socket with a JSON body. */
export const rawPost = (port: number, target: string, body: string, headers: string[] = [`Cookie: ${SESSION}`, 'Content-Type: application/json']) =>
  rawRequest(
    port,
    `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers.map((h) => `${h}\r\n`).join('')}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );

/** Every place the key could hide in what the page received. */
export function leaks(text: string): string[] {
  return KEY_FORMS.filter((form) => text.includes(form));
}
