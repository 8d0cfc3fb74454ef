import { CallbackError } from '../errors.ts';
import { contentLength } from '../internal/content-length.ts';
import type { Answer } from './delivery.ts';
import { readCapped, type CallbackBody } from './parse-callback.ts';

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

/** The body of a Node request: what a body parser left in `req.body`, else the stream, capped. */
export async function nodeBody(req: NodeCallbackRequest, stream: NodeCallbackRequest, maxBytes: number): Promise<CallbackBody> {
  const declared = contentLength(req.headers['content-length'] ?? stream.headers['content-length']);
  if (declared !== undefined && declared > maxBytes) {
    throw new CallbackError('too_large', `Callback body is larger than ${maxBytes.toLocaleString('en-US')} bytes (content-length ${declared})`);
  }
  const unread = !stream.readableEnded && typeof stream[Symbol.asyncIterator] === 'function';
  const parsed = req.body;
  // Express 4 leaves `{}` when no parser matched but the stream is intact: read the stream.
  const emptyPlaceholder =
    unread && typeof parsed === 'object' && parsed !== null && !(parsed instanceof Uint8Array) && Object.keys(parsed).length === 0;
  if (parsed !== undefined && parsed !== null && !emptyPlaceholder) return parsed as CallbackBody;
  if (!unread) throw new CallbackError('invalid_body', 'Callback body was consumed before the handler and not kept in req.body');
  const iterator = stream[Symbol.asyncIterator]!();
  // On overflow stop reading (the answer closes the connection) rather than drain the rest.
  return readCapped(() => iterator.next(), maxBytes, () => {});
}

export function writeNodeAnswer(res: NodeCallbackResponse, answer: Answer): void {
  let target = res;
  if (typeof res.hijack === 'function' && res.raw) {
    // Fastify: take the reply over so Fastify does not try to send its own.
    res.hijack();
    target = res.raw;
  }
  target.statusCode = answer.status;
  target.setHeader?.('content-type', 'application/json');
  if (answer.status === 405) target.setHeader?.('allow', 'POST');
  if (answer.close) target.setHeader?.('connection', 'close');
  target.end?.(JSON.stringify(answer.body));
}

/** The answer as a fetch `Response`. */
export function answerResponse(answer: Answer): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (answer.status === 405) headers.allow = 'POST';
  if (answer.close) headers.connection = 'close';
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers });
}
