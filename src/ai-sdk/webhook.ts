/**
 * The AI SDK's `webhook` option: one generation's end, from the app's webhook delivery or from
 * the client's own polling, whichever comes first. A delivery is untrusted input (the spec
 * signs no callback): it is parsed and verified by one read of the task, as
 * `client.callbacks.verify` does, and only the service's answer can end the generation, never
 * the posted body. A delivery that cannot be used (malformed, another task's, not confirmed
 * by the service) leaves the polling to end it.
 */
import type { Experimental_VideoModelV4OperationWebhook as Webhook, JSONValue, SharedV4Warning } from '@ai-sdk/provider';
import { isFailureStatus, isTerminalStatus, TaskFailedError, type CallbackBody, type OmniMedia, type TaskPromise, type TaskResult } from 'omnimedia';

/** A task the webhook path has already read from the service, and what it noticed on the way. */
export interface SettledTask {
  task: TaskResult;
  warnings: SharedV4Warning[];
}

/**
 * What `handleWebhookOption` hands the AI SDK: `received` settles once the task has ended
 * (it rejects with `TaskFailedError` for a failed task, or with the wait's error), and
 * `follow` starts the race once `doStart` has the task.
 */
export class WebhookCompletion {
  readonly received: Promise<Webhook>;
  readonly #delivery: PromiseLike<Webhook>;
  #resolve!: (webhook: Webhook) => void;
  #reject!: (error: unknown) => void;

  constructor(delivery: PromiseLike<Webhook>) {
    this.#delivery = delivery;
    this.received = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Whoever awaits it sees its rejection; unawaited (doStart failed), it is no unhandled one.
    this.received.catch(() => {});
  }

  /**
   * Race the app's delivery (verified) against the client's polling of `submitted`; `settled`
   * gets the task that ended it, for the AI SDK's `doStatus` that follows. An abort of `signal`
   * ends the polling at once.
   */
  follow(client: OmniMedia, submitted: TaskPromise<{ task_id: string }>, taskId: string, signal: AbortSignal | undefined, settled: (end: SettledTask) => void): void {
    const stop = new AbortController();
    const waitSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    const warnings: SharedV4Warning[] = [];
    const end = (task: TaskResult, headers: Record<string, string>) => {
      if (stop.signal.aborted) return;
      stop.abort();
      if (isFailureStatus(task.status)) return this.#reject(new TaskFailedError(task));
      settled({ task, warnings });
      this.#resolve({ headers, body: task as unknown as JSONValue });
    };
    // Polling, the fallback: the client's cadence, as for any `.wait()`.
    submitted.wait({ signal: waitSignal }).then(
      (task) => end(task, {}),
      (error: unknown) => {
        if (stop.signal.aborted) return;
        stop.abort();
        this.#reject(error);
      },
    );
    const ignored = (why: string) => warnings.push({ type: 'other', message: `the webhook delivery was not used (${why}); the result came from polling` });
    Promise.resolve(this.#delivery).then(
      async ({ headers, body }) => {
        const posted = await client.callbacks.parse(body as CallbackBody);
        if (posted.task_id !== taskId) return ignored(`it names task ${posted.task_id}, not ${taskId}`);
        const task = await client.callbacks.verify(posted, { signal: waitSignal });
        if (!isTerminalStatus(task.status)) return ignored(`it says ${posted.status}, the service says ${task.status}`);
        end(task, headers);
      },
    ).catch((error: unknown) => {
      if (!stop.signal.aborted) ignored(String((error as Error)?.message ?? error));
    });
  }

  /** `doStart` failed: nothing to wait for (the AI SDK does not await `received` then). */
  abandon(error: unknown): void {
    this.#reject(error);
  }
}
