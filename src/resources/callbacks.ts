import { parseCallback, readCapped, DEFAULT_CALLBACK_MAX_BYTES, type CallbackBody, type ParseCallbackOptions } from '../callbacks/parse-callback.ts';
import { deliveryKey, MemoryDedupeStore, type CallbackDedupeStore } from '../callbacks/dedupe.ts';
import { CallbackError, NotFoundError, ValidationError, type CallbackErrorReason } from '../errors.ts';
import { contentLength } from '../internal/content-length.ts';
import type { TaskResult } from '../schemas/task.ts';
import { APIResource } from './resource.ts';

/**
 * Called once per accepted delivery, with the service's own version of the task when verified.
 *
 * @example
 * ```ts
 * const onTask: CallbackTaskHandler = async (task) => {
 *   await db.tasks.update(task.task_id, { status: task.status, url: task.data?.[0]?.url });
 * };
 * ```
 */
export type CallbackTaskHandler = (task: TaskResult) => unknown;

/**
 * Options of `callbacks.handler()` and `callbacks.nodeHandler()`.
 *
 * @example
 * ```ts
 * const handle = client.callbacks.handler(onTask, { verify: true, dedupe: true });
 * ```
 */
export interface CallbackHandlerOptions {
  /**
   * Re-read the task from the service (`GET /v1/tasks/{id}`, no key needed) and hand
   * `onTask` that version, not the posted one. Default `true`: callbacks are unsigned, so a
   * posted body is only a hint. Turn off only with a `callbackSecret` on the client.
   */
  verify?: boolean;
  /**
   * Run `onTask` once per task and status when the service delivers again. Default `true`
   * (in memory, the last 10,000 deliveries, per handler). Pass a `CallbackDedupeStore` to
   * share the record between instances, or `false` to see every delivery.
   */
  dedupe?: boolean | CallbackDedupeStore;
  /** Refuse bodies larger than this (413). Default 1 MiB. */
  maxBytes?: number;
  /**
   * ms to receive the whole body; past it the delivery is answered 408 and the connection
   * closed, so a sender that stalls cannot hold a socket (Node's own request timeout is
   * 300 s). Default 10,000.
   */
  readTimeout?: number;
}

/** Default ms a callback body may take to arrive. A task result is a few KB. */
export const DEFAULT_CALLBACK_READ_TIMEOUT_MS = 10_000;

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

/** What a delivery gets back: the status and a small JSON acknowledgement. */
interface Answer {
  status: number;
  body: { ok: boolean; duplicate?: true; reason?: string };
  /** The request body may be left unread: close the connection rather than drain it. */
  close?: true;
}

const STATUS_OF: Record<CallbackErrorReason, number> = {
  too_large: 413,
  unauthorized: 401,
  invalid_body: 400,
  invalid_json: 400,
  invalid_shape: 400,
  unknown_task: 400,
};

/**
 * Completion callbacks: parse, verify, and ready handlers for fetch-style and Node servers.
 *
 * @example
 * ```ts
 * const handle = client.callbacks.handler(async (task) => {
 *   if (task.status === 'completed') await save(task);
 * });
 * Bun.serve({ fetch: handle }); // or Deno.serve(handle), Hono, a Next.js route...
 * ```
 */
export class Callbacks extends APIResource {
  /**
   * Parse a callback body (string, bytes, parsed object or `Request`); see `parseCallback`.
   * Checks the shape only: use `verify` to trust it.
   */
  parse(body: CallbackBody, options?: ParseCallbackOptions): Promise<TaskResult> {
    return parseCallback(body, options);
  }

  /**
   * Parse a callback body, then read the same task from the service and return the service's
   * version. The spec signs no callback, so this is what makes one trustworthy: a forged
   * "completed" for a task that is still running comes back with its real status. An id the
   * service does not know throws `CallbackError` with reason `unknown_task`.
   *
   * @example
   * ```ts
   * const task = await client.callbacks.verify(await request.text());
   * if (task.status === 'completed') await save(task.data);
   * ```
   */
  async verify(body: CallbackBody | TaskResult, options: ParseCallbackOptions & { signal?: AbortSignal } = {}): Promise<TaskResult> {
    return this.#confirm(await parseCallback(body, options), options.signal);
  }

  /** The service's version of a parsed callback's task. */
  async #confirm(posted: TaskResult, signal?: AbortSignal): Promise<TaskResult> {
    try {
      return await this.client.tasks.retrieve(posted.task_id, signal ? { signal } : {});
    } catch (error) {
      if (error instanceof NotFoundError) {
        throw new CallbackError('unknown_task', `Callback names task ${posted.task_id}, which the service does not know`, {
          cause: error,
          taskId: posted.task_id,
        });
      }
      throw error;
    }
  }

  /**
   * `url` with this client's callback token added (see the `callbackSecret` option); `url`
   * unchanged when the client has no secret. Submissions add it by themselves: this is for
   * code that hands a callback URL around.
   */
  async url(url: string): Promise<string> {
    return this.client.callbackTokens ? this.client.callbackTokens.addTo(url) : url;
  }

  /**
   * A handler for fetch-style servers (Hono, Next.js route handlers, Bun, Deno, workers):
   * checks the token, parses, verifies, dedupes, calls `onTask`, and answers 200 with a small
   * JSON ack; 400 malformed, 401 bad token, 413 too large, 409 when the service does not
   * confirm the posted status, 500 if `onTask` throws or the service cannot be reached (so the
   * service may deliver again).
   *
   * @example
   * ```ts
   * const handle = client.callbacks.handler(async (task) => {
   *   if (task.status === 'completed') await save(task.task_id, task.data);
   * });
   * app.post('/omnimedia/callback', (c) => handle(c.req.raw)); // Hono
   * export const POST = handle;                                 // Next.js route handler
   * ```
   */
  handler(onTask: CallbackTaskHandler, options: CallbackHandlerOptions = {}): (request: Request) => Promise<Response> {
    const deliver = this.#delivery(onTask, options);
    return async (request) => {
      const answer = await deliver(request.method, request.url, () => request);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (answer.status === 405) headers.allow = 'POST';
      if (answer.close) headers.connection = 'close';
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers });
    };
  }

  /**
   * A handler for Node's `http`, Express and Fastify: `(req, res) => Promise<void>`. Reads
   * the raw body itself, or takes `req.body` when a body parser already ran. Same answers as
   * `handler`.
   *
   * @example
   * ```ts
   * const handle = client.callbacks.nodeHandler(async (task) => save(task));
   * http.createServer(handle).listen(3000);    // Node http
   * app.post('/omnimedia/callback', handle);   // Express, with or without express.json()
   * fastify.post('/omnimedia/callback', handle); // Fastify
   * ```
   */
  nodeHandler(
    onTask: CallbackTaskHandler,
    options: CallbackHandlerOptions = {},
  ): (req: NodeCallbackRequest, res: NodeCallbackResponse) => Promise<void> {
    const deliver = this.#delivery(onTask, options);
    const maxBytes = options.maxBytes ?? DEFAULT_CALLBACK_MAX_BYTES;
    return async (req, res) => {
      const stream = req.raw ?? req;
      const answer = await deliver(req.method ?? stream.method, req.originalUrl ?? req.url ?? stream.url, () =>
        nodeBody(req, stream, maxBytes),
      );
      writeNodeAnswer(res, answer);
    };
  }

  #delivery(
    onTask: CallbackTaskHandler,
    options: CallbackHandlerOptions,
  ): (method: string | undefined, url: string | undefined, body: () => CallbackBody | Promise<CallbackBody>) => Promise<Answer> {
    const { client } = this;
    const verify = options.verify ?? true;
    if (options.maxBytes !== undefined && (!Number.isSafeInteger(options.maxBytes) || options.maxBytes < 1)) {
      throw new ValidationError([{ path: 'maxBytes', message: `must be a positive integer (got ${String(options.maxBytes)})` }], 'callback handler options');
    }
    const readTimeout = options.readTimeout ?? DEFAULT_CALLBACK_READ_TIMEOUT_MS;
    if (!Number.isSafeInteger(readTimeout) || readTimeout < 1) {
      throw new ValidationError([{ path: 'readTimeout', message: `must be a positive whole number of ms (got ${String(readTimeout)})` }], 'callback handler options');
    }
    if (!verify && !client.callbackTokens) {
      client.logger.warn('callback handler with verify: false and no callbackSecret: anyone who finds the URL can post a fake task to onTask');
    }
    const store = options.dedupe === false ? undefined : options.dedupe === true || options.dedupe === undefined ? new MemoryDedupeStore() : options.dedupe;
    const parseOptions = options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes };
    const reject = (status: number, reason: string, close?: true): Answer => ({
      status,
      body: { ok: false, reason },
      ...(close ? { close } : {}),
    });

    return async (method, url, body) => {
      if (method?.toUpperCase() !== 'POST') return reject(405, 'method_not_allowed', true);
      if (client.callbackTokens && !(await client.callbackTokens.accepts(url))) {
        client.logger.warn('callback rejected: missing or wrong token');
        return reject(401, 'unauthorized', true);
      }
      let task: TaskResult;
      try {
        const posted = await withinReadTimeout(
          (async () => parseCallback(await body(), parseOptions))(),
          readTimeout,
        );
        if (posted === READ_TIMED_OUT) {
          client.logger.info(`callback rejected: the body did not arrive within ${readTimeout} ms`);
          return reject(408, 'read_timeout', true);
        }
        task = posted;
        if (verify) {
          task = await this.#confirm(posted);
          if (task.status !== posted.status) {
            client.logger.warn(`callback for task ${posted.task_id} says "${posted.status}", the service says "${task.status}"`);
            return reject(409, 'unconfirmed');
          }
        }
      } catch (error) {
        if (error instanceof CallbackError) {
          // A stranger's junk is not worth a warning per request; an unknown task id may be a forgery.
          const level = error.reason === 'unknown_task' ? 'warn' : 'info';
          client.logger[level](`callback rejected (${error.reason}): ${error.message}`);
          return reject(STATUS_OF[error.reason], error.reason, error.reason === 'too_large' ? true : undefined);
        }
        client.logger.error(`callback could not be verified: ${String((error as Error)?.message ?? error)}`);
        return reject(500, 'verify_failed');
      }

      const key = deliveryKey(task);
      try {
        if (store && !(await store.claim(key))) return { status: 200, body: { ok: true, duplicate: true } };
      } catch (error) {
        client.logger.error(`callback dedupe store failed: ${String((error as Error)?.message ?? error)}`);
        return reject(500, 'dedupe_failed');
      }
      // Only news we can trust reaches pending waits: verified, or carried by a checked token.
      if (verify || client.callbackTokens) client.taskEvents.publish(task);
      try {
        await onTask(task);
      } catch (error) {
        client.logger.error(`callback onTask threw for task ${task.task_id}: ${String((error as Error)?.message ?? error)}`);
        try {
          await store?.release(key);
        } catch {
          // The store is down too; the redelivery may be taken for a repeat. Logged above.
        }
        return reject(500, 'handler_failed');
      }
      return { status: 200, body: { ok: true } };
    };
  }
}

const READ_TIMED_OUT = Symbol('read timed out');

/** `reading`, or `READ_TIMED_OUT` when it has not settled within `ms`. */
function withinReadTimeout<T>(reading: Promise<T>, ms: number): Promise<T | typeof READ_TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<typeof READ_TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(READ_TIMED_OUT), ms)));
  // The read goes on until the connection closes; its outcome no longer matters.
  reading.catch(() => {});
  return Promise.race([reading, timedOut]).finally(() => clearTimeout(timer));
}

/** The body of a Node request: what a body parser left in `req.body`, else the stream, capped. */
async function nodeBody(req: NodeCallbackRequest, stream: NodeCallbackRequest, maxBytes: number): Promise<CallbackBody> {
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

function writeNodeAnswer(res: NodeCallbackResponse, answer: Answer): void {
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
