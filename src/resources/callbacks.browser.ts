/**
 * The browser twin of callbacks.ts: a page receives no callback (the service posts them to a
 * server), so a page's build keeps `parse` and `url` and leaves the delivery out: `verify`,
 * `handler` and `nodeHandler` refuse, saying where they run and what a page uses instead. Why:
 * the delivery (token checks, dedupe, the handlers' answers) is 2.4 KB gzip of a page's
 * client, for a call a page never gets.
 */
import type { CallbackTaskHandler, DeliveryPorts } from '../callbacks/delivery.ts';
import { parseCallback, type CallbackBody } from '../callbacks/parse-callback.ts';
import { callbackURL } from '../callbacks/token-mint.ts';
import { OmniMediaError } from '../errors.ts';
import type { ParseCallbackOptions } from '../options.ts';
import type { TaskResult } from '../schemas/task.ts';

/** What a page calls instead of a callback handler. */
function onServer(method: string): never {
  throw new OmniMediaError(
    `client.callbacks.${method} runs on your server (Node, Deno, Bun, a worker), which receives the service's callbacks; this is the browser build: in a page, follow the task with client.tasks.wait(taskId), or read a callback body your server passed on with parseCallback`,
  );
}

/** Completion callbacks in a page: `parse` and `url` (see callbacks.ts for the server's). */
export class Callbacks {
  readonly #ports: DeliveryPorts;

  /** @internal */
  constructor(context: { delivery: DeliveryPorts }) {
    this.#ports = context.delivery;
  }

  parse(body: CallbackBody, options?: ParseCallbackOptions): Promise<TaskResult> {
    return parseCallback(body, options);
  }

  async verify(_body: CallbackBody | TaskResult, _options?: ParseCallbackOptions & { signal?: AbortSignal }): Promise<TaskResult> {
    return onServer('verify');
  }

  url(url: string): Promise<string> {
    return callbackURL(this.#ports.tokens, url);
  }

  handler(_onTask: CallbackTaskHandler, _options?: unknown): (request: Request) => Promise<Response> {
    return onServer('handler');
  }

  nodeHandler(_onTask: CallbackTaskHandler, _options?: unknown): never {
    return onServer('nodeHandler');
  }
}
