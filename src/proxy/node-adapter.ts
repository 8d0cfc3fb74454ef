/**
 * `nodeHandler`: the same proxy for `node:http`-style servers (Node's own, Express, Fastify's
 * raw request). The raw request target is matched before a `Request` is built, the body is
 * handed on as a web stream read only as fast as the service takes it (never buffered), and a
 * page that goes away aborts the upstream request. Imports nothing from `node:*`: Node's
 * objects are driven by their shape.
 */
import { hostOf } from './origin.ts';
import { linger } from './page-body.ts';

/**
 * The request `nodeHandler` reads, by shape: Node's `IncomingMessage`, Express's and Fastify's
 * raw request fit.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * createServer((req, res) => proxy.nodeHandler(req, res)).listen(3000);
 * ```
 */
export interface NodeProxyRequest {
  /** `GET`, `POST`, `OPTIONS`... */
  method?: string | undefined;
  /** The raw request target, as it came off the wire. */
  url?: string | undefined;
  /** Express: the target before a mount path was stripped from `url`. */
  originalUrl?: string | undefined;
  /** The request's headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** What a body parser mounted before the proxy left (JSON endpoints only). */
  body?: unknown;
  /** The body has been read to its end (by a body parser). */
  readableEnded?: boolean | undefined;
  /** A TLS socket says `encrypted`: the request URL is then https. */
  socket?: unknown;
  /** The body, chunk by chunk: read only as fast as the service takes it. */
  [Symbol.asyncIterator]?(): AsyncIterator<unknown>;
}

/**
 * The response `nodeHandler` writes, by shape: Node's `ServerResponse` and Express's `res` fit.
 *
 * @example
 * ```ts
 * app.use('/api/omnimedia', proxy.nodeHandler); // Express: res is a NodeProxyResponse
 * ```
 */
export interface NodeProxyResponse {
  /** The answer's status. */
  statusCode: number;
  /** Set one header of the answer. */
  setHeader(name: string, value: string): unknown;
  /** Write part of the body. */
  write(chunk: Uint8Array): boolean;
  /** End the answer. */
  end(chunk?: Uint8Array): unknown;
  /** `close`: the connection ended (before the answer did, when the page went away). */
  once(event: 'close', listener: () => void): unknown;
  /** The whole answer was handed to the socket. */
  readonly writableFinished?: boolean | undefined;
  /** The status and headers went out already. */
  readonly headersSent?: boolean | undefined;
  /** Send the status and headers now (an event stream's, before its first event). */
  flushHeaders?(): void;
  /** What a compression middleware adds: write out what it holds (after each event). */
  flush?(): void;
}

/** What the proxy itself runs: the method, the raw target, and the `Request` built on demand. */
export type Serve = (method: string, target: string, request: () => Request) => Promise<Response | undefined>;

const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The request's body as a web stream pulled from Node's (and how to drop its rest after a
 * refusal), or what a body parser already read.
 */
function bodyOf(req: NodeProxyRequest, method: string): { body: BodyInit | null; drop?: () => Promise<void> } {
  if (BODILESS.has(method)) return { body: null };
  const parsed = req.body;
  if ((req.readableEnded || typeof req[Symbol.asyncIterator] !== 'function') && parsed !== undefined) {
    if (parsed instanceof Uint8Array || typeof parsed === 'string') return { body: parsed as BodyInit };
    // express.json() ran first: the same JSON again (the proxy checks it as any other body).
    return { body: JSON.stringify(parsed) };
  }
  const iterate = req[Symbol.asyncIterator];
  if (!iterate) return { body: null };
  const chunks = iterate.call(req);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === 'string' ? new TextEncoder().encode(value) : (value as Uint8Array));
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, drop: () => linger(chunks) };
}

/** A fetch `Request` of the Node request (its URL from the Host header and the raw target, already checked). */
function toRequest(req: NodeProxyRequest, method: string, origin: string, target: string, signal: AbortSignal): { request: Request; drop?: () => Promise<void> } {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const { body, drop } = bodyOf(req, method);
  const init: RequestInit & { duplex?: 'half' } = { method, headers, body, signal };
  if (body instanceof ReadableStream) init.duplex = 'half';
  const request = new Request(`${origin}${target}`, init);
  return drop ? { request, drop } : { request };
}

/**
 * Write the proxy's answer: a small JSON body (at most 1 MiB), written whole with its length in
 * one write. With `drop` (a refusal that left the page's body unread), the rest of that body is
 * dropped before the response ends: Node closes a connection the page asked to close as soon
 * as the response ends, and closing on unread bytes resets it, which can destroy the answer
 * before the page reads it.
 */
async function write(res: NodeProxyResponse, answer: Response, drop?: () => Promise<void>): Promise<void> {
  res.statusCode = answer.status;
  answer.headers.forEach((value, name) => res.setHeader(name, value));
  if (answer.body && answer.headers.get('content-type')?.startsWith('text/event-stream')) return stream(res, answer.body);
  const bytes = new Uint8Array(await answer.arrayBuffer());
  res.setHeader('content-length', String(bytes.byteLength));
  if (!drop) return void res.end(bytes);
  res.write(bytes);
  await drop();
  res.end();
}

/**
 * Write an event stream as it comes: each event in one write, flushed (through a compression
 * middleware too), never gathered. It ends when the stream does; the page going away ends the
 * stream (the request's signal).
 */
async function stream(res: NodeProxyResponse, body: ReadableStream<Uint8Array>): Promise<void> {
  res.flushHeaders?.();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
      res.flush?.();
    }
  } finally {
    res.end();
  }
}

/**
 * The Node handler of a proxy. With `next` (Express), a target outside the proxy's `basePath`
 * goes on to the app's other routes; without it, it is a 404.
 */
export function nodeHandlerOf(serve: Serve, notFound: () => Response) {
  return (req: NodeProxyRequest, res: NodeProxyResponse, next?: (error?: unknown) => void): void => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new DOMException('the page closed the connection', 'AbortError'));
    });
    const method = req.method ?? 'GET';
    const target = req.originalUrl ?? req.url ?? '/';
    const scheme = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted ? 'https:' : 'http:';
    // The Request's URL, for `authorize` and `policy` to read: the Host header's (a bad one is a 400).
    const sent = first(req.headers.host) ?? 'localhost';
    const host = hostOf(sent, scheme) ?? sent;
    let drop: (() => Promise<void>) | undefined;
    const build = () => {
      const built = toRequest(req, method, `${scheme}//${host}`, target, controller.signal);
      drop = built.drop;
      return built.request;
    };
    serve(method, target, build)
      .then(async (answer) => {
        if (answer === undefined && next) return next();
        await write(res, answer ?? notFound(), drop && !req.readableEnded ? drop : undefined);
      })
      .catch((error: unknown) => {
        if (next && !res.headersSent) return next(error);
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end();
        }
      });
  };
}
