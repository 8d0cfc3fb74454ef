import type { Answer } from './delivery.ts';

/**
 * The request a Node-style handler reads, typed by shape so no Node types leak: Node's
 * `IncomingMessage`, Express's and Fastify's requests all fit. When a body parser already
 * ran, `body` (an object, string or bytes) is used; otherwise the stream is read.
 *
 * @example
 * ```ts
 * import express from 'express';
 * const app = express();
 * app.post('/omnimedia/callback', express.json(), client.callbacks.nodeHandler(onTask));
 * ```
 */
export interface NodeCallbackRequest {
  method?: string | undefined;
  url?: string | undefined;
  /** Express: the URL before mounting stripped a prefix (the query is what matters). */
  originalUrl?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  readableEnded?: boolean | undefined;
  [Symbol.asyncIterator]?(): AsyncIterator<unknown>;
  /** Fastify: the underlying Node request. */
  raw?: NodeCallbackRequest | undefined;
}

/**
 * The response a Node-style handler writes: Node's `ServerResponse`, Express's `res`, or Fastify's `reply`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * createServer(client.callbacks.nodeHandler(onTask)).listen(8080);
 * ```
 */
export interface NodeCallbackResponse {
  statusCode?: number;
  setHeader?(name: string, value: string): unknown;
  end?(body: string): unknown;
  /** Fastify: the handler takes the reply over and writes to `raw`. */
  hijack?(): unknown;
  raw?: NodeCallbackResponse | undefined;
}

/** The answer as a fetch `Response`. */
export function answerResponse(answer: Answer): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (answer.status === 405) headers.allow = 'POST';
  if (answer.close) headers.connection = 'close';
  if (answer.retryAfter) headers['retry-after'] = String(answer.retryAfter);
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers });
}
