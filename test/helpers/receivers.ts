// Callback receivers on loopback, one per server style, so handler tests go through real HTTP.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import type { NodeCallbackRequest, NodeCallbackResponse } from 'omnimedia/resources';

export interface Receiver {
  /** The callback URL, e.g. `http://127.0.0.1:1234/hooks/omnimedia`. */
  url: string;
  close(): Promise<void>;
}

export const CALLBACK_PATH = '/hooks/omnimedia';

function address(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

async function listen(server: Server): Promise<Receiver> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: address(server), close: closer(server) };
}

/** A fetch-style handler behind Hono's Node adapter. */
export async function fetchReceiver(handle: (request: Request) => Promise<Response>): Promise<Receiver> {
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: handle, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }, () => resolve(s as Server)) as Server;
  });
  return { url: address(server), close: closer(server) };
}

/** A Node `(req, res)` handler on a bare `http` server. */
export function nodeReceiver(handle: RequestListener): Promise<Receiver> {
  return listen(createServer(handle));
}

export type ExpressParser = 'none' | 'json' | 'raw' | 'text';

/** A Node handler mounted in Express, after the given body parser. */
export function expressReceiver(handle: express.RequestHandler, parser: ExpressParser): Promise<Receiver> {
  const app = express();
  if (parser === 'json') app.use(express.json());
  if (parser === 'raw') app.use(express.raw({ type: '*/*' }));
  if (parser === 'text') app.use(express.text({ type: '*/*' }));
  app.post(CALLBACK_PATH, handle);
  return listen(createServer(app));
}

/** A Node handler as a Fastify route (Fastify parses JSON bodies itself). */
export async function fastifyReceiver(handle: (req: NodeCallbackRequest, res: NodeCallbackResponse) => Promise<void>): Promise<Receiver> {
  const app = Fastify();
  app.post(CALLBACK_PATH, handle);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${CALLBACK_PATH}`, close: () => app.close() };
}

/** POST `body` to `url` and read the answer. */
export async function post(url: string, body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    ...(typeof body === 'string' ? {} : { duplex: 'half' }),
  } as RequestInit);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
