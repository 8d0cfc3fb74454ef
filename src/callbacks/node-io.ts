/**
 * Reading and answering a delivery on Node's `http` (Express, Fastify). Browser builds get
 * node-io.browser.ts instead (see tsup.config.ts): a page runs no Node server.
 */
import { CallbackError } from '../errors.ts';
import { contentLength } from '../internal/content-length.ts';
import type { NodeCallbackRequest, NodeCallbackResponse } from './answers.ts';
import type { Answer } from './delivery.ts';
import { readCapped, type CallbackBody } from './parse-callback.ts';

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
  if (answer.retryAfter) target.setHeader?.('retry-after', String(answer.retryAfter));
  target.end?.(JSON.stringify(answer.body));
}
