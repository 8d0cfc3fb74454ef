// Misbehaving HTTP servers on loopback: they stall, reset, lie about Content-Length, redirect
// forever and stream without end. Each test sets what the server does with `behave`; the SDK
// talks to it through Node's real fetch and a real socket.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach } from 'vitest';

export type Behaviour = (req: IncomingMessage, res: ServerResponse, n: number) => void;

/** A server for the whole test file; `behave` sets what it does; `requests` counts them. */
export async function useHostileServer() {
  let behaviour: Behaviour = (_req, res) => void res.writeHead(404).end();
  let n = 0;
  const sockets = new Set<Socket>();
  /** Resolves the next time a response's headers have gone out (see `headersSent`). */
  let onHeaders: (() => void)[] = [];
  const server = createServer((req, res) => {
    n++;
    // Every test destroys the sockets it leaves behind; a client that kept one alive for the
    // next test would meet a dead socket (Node 22's fetch does not retry that on its own).
    res.shouldKeepAlive = false;
    req.resume();
    behaviour(req, res, n);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  afterEach(async () => {
    behaviour = (_req, res) => void res.writeHead(404).end();
    n = 0;
    onHeaders = [];
    for (const socket of sockets) socket.destroy();
    // Let the client's side see those sockets close, so its pool does not hand one to the next
    // test's first request (Node 22's fetch then fails it with "other side closed").
    for (let turn = 0; turn < 10; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    behave(next: Behaviour) {
      behaviour = next;
    },
    /** Requests seen since the test began. */
    requests: () => n,
    /** Open sockets right now. */
    openSockets: () => sockets.size,
    /** Call from a behaviour once its headers (and any first bytes) are written. */
    headersSent() {
      for (const resolve of onHeaders.splice(0)) resolve();
    },
    /** Resolves when a behaviour calls `headersSent()`. */
    nextHeaders(): Promise<void> {
      return new Promise((resolve) => onHeaders.push(resolve));
    },
  };
}

/** Headers and the first bytes of a JSON body, then nothing: the body never ends. */
export function stallAfter(first: string, headers: Record<string, string> = {}): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.write(first);
  };
}

/** Stream `chunk` forever (until the client goes away), as fast as the socket takes it. */
export function endless(status: number, chunk: Uint8Array, headers: Record<string, string> = {}): Behaviour {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  };
}

/**
 * A full GC, twice (the second collects what the first finalized), once the I/O in flight has
 * settled: fetch holds its own request object until it has handed the response over, so a GC
 * right at the headers may find nothing to collect. Needs `--expose-gc`.
 */
export async function fullGc(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run the tests with --expose-gc (vitest.config.ts sets it for the workers)');
  for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  gc();
  gc();
}
