/**
 * The AI SDK's `webhook` option: one generation's end, from the app's webhook delivery or from
 * the client's own polling, whichever comes first. A delivery is untrusted input (the spec
 * signs no callback), so it goes through the client's callback handler, as a delivery to
 * `client.callbacks.handler` would: parsed, verified by one read of the task, cleared from the
 * journal, and published to the client's waits, where it ends the polling wait at once. The
 * posted body is never the result: only the service's answer is. A delivery the handler
 * refuses (malformed, not confirmed by the service) leaves the polling to end it. The polling
 * stops when the AI SDK stops waiting for the webhook (its `poll.timeoutMs`, 10 minutes by
 * default), not at the client's 30-minute video deadline: nobody would hear its result.
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

/**
 * How long the AI SDK waits for a webhook by default (its `poll.timeoutMs`, 600,000 ms), which a
 * model is not told: the fallback polling stops then. A delivery after it still ends the
 * generation (an app that gave the AI SDK longer), through one more read.
 */
export const AI_SDK_WEBHOOK_WAIT_MS = 600_000;
/** The read that follows a delivery heard after the fallback polling stopped, in ms at most. */
const LATE_READ_MS = 60_000;

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
  /** When the AI SDK stops waiting for the webhook (by default), in ms since the epoch. */
  readonly #givesUpAt = Date.now() + AI_SDK_WEBHOOK_WAIT_MS;
  /** When `handleWebhookOption` made it: one that no `doStart` took soon after was abandoned. */
  readonly madeAt = Date.now();

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
    let polling = true;
    const end = (task: TaskResult) => {
      if (ended) return;
      ended = true;
      settled({ task, warnings });
      this.#end.resolve({ headers, body: task as unknown as JSONValue });
    };
    const fail = (error: unknown) => {
      if (ended) return;
      ended = true;
      this.#end.reject(error);
    };
    const bounds = signal ? { signal } : {};
    submitted.wait({ ...bounds, timeout: Math.max(1, this.#givesUpAt - Date.now()) }).then(end, (error: unknown) => {
      // The AI SDK has stopped waiting too: no more polling, but a delivery may still end it.
      if ((error as Error | undefined)?.name === 'WaitTimeoutError' && !signal?.aborted) polling = false;
      else fail(error);
    });
    const ignored = (why: string) => warnings.push({ type: 'other', message: `the webhook delivery was not used (${why}); the result came from polling` });
    Promise.resolve(this.#delivery)
      .then(async (delivery) => {
        // Ended (polling saw it first, or the caller gave up): a delivery now is worth no read.
        if (ended) return;
        const text = bodyText(delivery.body);
        const posted = await client.callbacks.parse(text as CallbackBody);
        if (posted.task_id !== taskId) return ignored(`it names task ${posted.task_id}, not ${taskId}`);
        headers = delivery.headers;
        // Heard after the polling stopped: a wait of its own hears the handler's news (or reads it once).
        const late = polling ? undefined : new AbortController();
        if (late) client.tasks.wait(taskId, { timeout: LATE_READ_MS, signal: signal ? AbortSignal.any([signal, late.signal]) : late.signal }).then(end, fail);
        const answer = await handle(new Request(await client.callbacks.url(callbackUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: text }));
        if (!answer.ok) {
          late?.abort();
          ignored(`${answer.status} ${((await answer.json()) as { reason?: string }).reason ?? ''}`.trim());
        }
      })
      // Not internal/error-text.ts: this subpath bundles only its own files (isolation.test.ts).
      .catch((error: unknown) => ignored(String((error as Error)?.message ?? error)));
  }

  /** `doStart` failed: nothing to wait for (the AI SDK does not await `received` then). */
  abandon(error: unknown): void {
    this.#end.reject(error);
  }
}
