import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach } from 'vitest';

/** One request as the loopback server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Bytes received (also when the body was not kept). */
  received: number;
  /** The body, when it was at most `keepBytes`. */
  body: Uint8Array | undefined;
  /** The client went away before the body ended. */
  aborted: boolean;
}

type Handler = (request: SeenRequest, res: ServerResponse) => void | Promise<void>;

/**
 * A real HTTP server on 127.0.0.1 for the whole test file: the SDK's requests go through
 * Node's fetch and a socket, not an interceptor. `handle` sets what it answers.
 */
export async function useLoopback(options: { keepBytes?: number } = {}) {
  const keepBytes = options.keepBytes ?? 1024 * 1024;
  const seen: SeenRequest[] = [];
  let handler: Handler = (_req, res) => void res.writeHead(404).end();
  const server = createServer((req, res) => {
    const request: SeenRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, received: 0, body: undefined, aborted: false };
    seen.push(request);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      request.received += chunk.byteLength;
      if (request.received <= keepBytes) chunks.push(chunk);
    });
    req.on('aborted', () => (request.aborted = true));
    req.on('error', () => (request.aborted = true));
    req.on('end', () => {
      if (request.received <= keepBytes) request.body = new Uint8Array(Buffer.concat(chunks));
      void Promise.resolve(handler(request, res)).catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
    req.on('close', () => {
      if (!req.complete) request.aborted = true;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  afterEach(() => {
    seen.length = 0;
    handler = (_req, res) => void res.writeHead(404).end();
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    server,
    handle(next: Handler) {
      handler = next;
    },
  };
}

/** The multipart body's `file` part, parsed by the platform. */
export async function filePart(request: SeenRequest): Promise<File> {
  const form = await new Response(request.body as Uint8Array<ArrayBuffer>, {
    headers: { 'content-type': String(request.headers['content-type']) },
  }).formData();
  return form.get('file') as File;
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
