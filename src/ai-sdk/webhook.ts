/**
 * The AI SDK's `webhook` option: one generation's end, from the app's webhook delivery or from
 * the client's own polling, whichever comes first. A delivery is untrusted input (the spec
 * signs no callback), so it goes through the client's callback handler, as a delivery to
 * `client.callbacks.handler` would: parsed, verified by one read of the task, cleared from the
 * journal, and published to the client's waits, where it ends the polling wait at once. The
 * posted body is never the result: only the service's answer is. A delivery the handler
 * refuses (malformed, not confirmed by the service) leaves the polling to end it.
 */
import type { Experimental_VideoModelV4OperationWebhook as Webhook, JSONValue, SharedV4Warning } from '@ai-sdk/provider';
import type { OmniMedia, TaskPromise, TaskResult } from 'omnimedia';
import type { CallbackBody } from 'omnimedia/resources';

/** A task the webhook path has already read from the service, and what it noticed on the way. */
export interface SettledTask {
  task: TaskResult;
  warnings: SharedV4Warning[];
}

/** The client's fetch-style callback handler, as the webhook path feeds it. */
export type CallbackHandler = (request: Request) => Promise<Response>;

/** A delivery's body as the JSON text the handler reads (the app may hand over text or parsed JSON). */
function bodyText(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** What `follow` needs of the submitted task. */
export interface Following {
  client: OmniMedia;
  /** The client's callback handler, which every delivery goes through. */
  handle: CallbackHandler;
  submitted: TaskPromise<{ task_id: string }>;
  taskId: string;
  /** The URL the task was submitted with (before the client's token). */
  callbackUrl: string;
  signal: AbortSignal | undefined;
  /** Gets the task that ended the wait, for the `doStatus` that follows. */
  settled: (end: SettledTask) => void;
}

/**
 * What `handleWebhookOption` hands the AI SDK: `received` settles once the task has ended (it
 * rejects with the wait's error: `TaskFailedError` for a failed task), and `follow` starts the
 * race once `doStart` has the task.
 */
export class WebhookCompletion {
  readonly #end = Promise.withResolvers<Webhook>();
  readonly #delivery: PromiseLike<Webhook>;

  constructor(delivery: PromiseLike<Webhook>) {
    this.#delivery = delivery;
    // Whoever awaits it sees its rejection; unawaited (doStart failed), it is no unhandled one.
    this.#end.promise.catch(() => {});
  }

  /** Settles once the task has ended: what the AI SDK awaits instead of polling. */
  get received(): Promise<Webhook> {
    return this.#end.promise;
  }

  /**
   * Wait for `submitted` on the client's poller and hand the app's delivery to `handle`, whose
   * verified task ends that wait; `settled` gets the task that ended it, for the AI SDK's
   * `doStatus` that follows. `callbackUrl` is the URL the task was submitted with. An abort
   * of `signal` ends the wait at once.
   */
  follow({ client, handle, submitted, taskId, callbackUrl, signal, settled }: Following): void {
    const warnings: SharedV4Warning[] = [];
    let headers: Record<string, string> = {};
    let ended = false;
    submitted.wait(signal ? { signal } : {}).then(
      (task) => {
        ended = true;
        settled({ task, warnings });
        this.#end.resolve({ headers, body: task as unknown as JSONValue });
      },
      (error: unknown) => {
        ended = true;
        this.#end.reject(error);
      },
    );
    const ignored = (why: string) => warnings.push({ type: 'other', message: `the webhook delivery was not used (${why}); the result came from polling` });
    Promise.resolve(this.#delivery)
      .then(async (delivery) => {
        // Ended (polling saw it first, or the caller gave up): a delivery now is worth no read.
        if (ended) return;
        const text = bodyText(delivery.body);
        const posted = await client.callbacks.parse(text as CallbackBody);
        if (posted.task_id !== taskId) return ignored(`it names task ${posted.task_id}, not ${taskId}`);
        headers = delivery.headers;
        const answer = await handle(new Request(await client.callbacks.url(callbackUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: text }));
        if (!answer.ok) ignored(`${answer.status} ${((await answer.json()) as { reason?: string }).reason ?? ''}`.trim());
      })
      // Not internal/error-text.ts: this subpath bundles only its own files (isolation.test.ts).
      .catch((error: unknown) => ignored(String((error as Error)?.message ?? error)));
  }

  /** `doStart` failed: nothing to wait for (the AI SDK does not await `received` then). */
  abandon(error: unknown): void {
    this.#end.reject(error);
  }
}
