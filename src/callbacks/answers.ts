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
  /** The HTTP method: only `POST` is a delivery (others are answered 405). */
  method?: string | undefined;
  /** The request's path and query (where the callback token is read). */
  url?: string | undefined;
  /** Express: the URL before mounting stripped a prefix (the query is what matters). */
  originalUrl?: string | undefined;
  /** The request headers, lower-cased as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** What a body parser put there (an object, a string or bytes); absent when none ran. */
  body?: unknown;
  /** `true` when a parser already consumed the stream (then `body` is all there is). */
  readableEnded?: boolean | undefined;
  /** The body as a stream of chunks, read when no parser ran (capped at the handler's `maxBodyBytes`). */
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
  /** The answer's status (200 handled or duplicate, 400, 401, 413, 503 with `Retry-After`...). */
  statusCode?: number;
  /** Sets one answer header (`content-type`, `retry-after`, `allow`). */
  setHeader?(name: string, value: string): unknown;
  /** Writes the JSON answer and ends the response. */
  end?(body: string): unknown;
  /** Fastify: the handler takes the reply over and writes to `raw`. */
  hijack?(): unknown;
  /** Fastify: the underlying Node response, written to after `hijack()`. */
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
