import { answerResponse, type NodeCallbackRequest, type NodeCallbackResponse } from '../callbacks/answers.ts';
import { nodeBody, writeNodeAnswer } from '../callbacks/node-io.ts';
import { confirmTask, createDelivery, type CallbackTaskHandler, type DeliveryPorts } from '../callbacks/delivery.ts';
import { parseCallback, type CallbackBody } from '../callbacks/parse-callback.ts';
import { callbackURL } from '../callbacks/token-mint.ts';
import { ValidationError } from '../errors.ts';
import { resolveHandlerOptions, resolveVerifyOptions } from '../option-checks.ts';
import type { CallbackHandlerOptions, ParseCallbackOptions } from '../options.ts';
import type { TaskResult } from '../schemas/task.ts';

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
export class Callbacks {
  readonly #ports: DeliveryPorts;

  /** @internal */
  constructor(context: { delivery: DeliveryPorts }) {
    this.#ports = context.delivery;
  }

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
  async verify(body: CallbackBody | TaskResult, options?: ParseCallbackOptions & { signal?: AbortSignal }): Promise<TaskResult> {
    const { parse, signal } = resolveVerifyOptions(options);
    return confirmTask(this.#ports, await parseCallback(body, parse), signal);
  }

  /**
   * `url` with this client's callback token added (see the `callbackSecret` option); `url`
   * unchanged when the client has no secret. Submissions add it by themselves: this is for
   * code that hands a callback URL around.
   */
  url(url: string): Promise<string> {
    return callbackURL(this.#ports.tokens, url);
  }

  /**
   * A handler for fetch-style servers (Hono, Next.js route handlers, Bun, Deno, workers):
   * checks the token, parses, verifies, dedupes, calls `onTask`, and answers 200 with a small
   * JSON ack once `onTask` returned (a repeat of a delivery handled: 200 `duplicate`); 400
   * malformed, 401 bad token, 413 too large, 409 when the service does not confirm the posted
   * status, 503 with `Retry-After` while another delivery of the same task runs `onTask`, 500 if
   * `onTask` throws or the service cannot be reached (so the service delivers again).
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
  handler(onTask: CallbackTaskHandler, options?: CallbackHandlerOptions): (request: Request) => Promise<Response> {
    checkOnTask(onTask);
    const deliver = createDelivery(this.#ports, onTask, resolveHandlerOptions(options));
    return async (request) => answerResponse(await deliver(request.method, request.url, () => request));
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
    options?: CallbackHandlerOptions,
  ): (req: NodeCallbackRequest, res: NodeCallbackResponse) => Promise<void> {
    checkOnTask(onTask);
    const settings = resolveHandlerOptions(options);
    const deliver = createDelivery(this.#ports, onTask, settings);
    const { maxBytes } = settings;
    return async (req, res) => {
      const stream = req.raw ?? req;
      const answer = await deliver(req.method ?? stream.method, req.originalUrl ?? req.url ?? stream.url, () =>
        nodeBody(req, stream, maxBytes),
      );
      writeNodeAnswer(res, answer);
    };
  }
}

/** `onTask` is a function: a handler that could never call it is refused when it is made. */
function checkOnTask(onTask: unknown): void {
  if (typeof onTask !== 'function') throw new ValidationError([{ path: 'onTask', message: 'must be a function' }], 'callback handler');
}
