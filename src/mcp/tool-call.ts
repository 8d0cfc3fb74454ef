import type { TaskPromise, TaskResult, TaskSubmission } from 'omnimedia';
import { BoundedMap } from '../internal/bounded-map.ts';
import { RenderBudget } from './render-budget.ts';

/** How a call's task ended: the finished task, or the error (with the last task seen, if any). */
export type Outcome = { task: TaskResult } | { error: unknown; task: TaskResult | undefined };

/**
 * What a submission tool does before its POST (its input checked, its local files uploaded,
 * all under `signal`), and then the POST itself: `send` is called only if no cancel came first.
 */
export type Prepare = (signal: AbortSignal) => Promise<{ send: () => TaskPromise<TaskSubmission> }>;

/** The reason of a call's abort: the agent cancelled it, or its session closed. */
export class CallCancelled extends Error {
  override readonly name = 'CallCancelled';
}

/**
 * One submission tool call, from its first byte to its task's end: the one owner of its abort
 * signal and of the task it submits, whichever requests look at it (the call, its MCP task, a
 * redelivery of the same request, `get_task`).
 *
 * Stages and what a cancel (`tasks/cancel`, `notifications/cancelled`, the session closing)
 * does at each:
 * - **preparing** (the input checked, local files uploaded): everything stops, the uploads
 *   are aborted, nothing is submitted and nothing is billed.
 * - **sent** (the POST went out; it carries no abort signal, so its answer is never thrown
 *   away): the answer is still read, and its `task_id` kept (`taskId`, the outcome's task);
 *   only the wait stops. The service task runs on: the service has no cancel.
 * - **following** (the task accepted): the wait stops; the task id is known.
 *
 * The abort signal is also the one every download of the result is made under (results.ts).
 */
export class ToolCall {
  /** The submission, once the service accepted it (rejects as the submission does). */
  readonly accepted: Promise<TaskSubmission>;
  /** How it ended; never rejects. */
  readonly done: Promise<Outcome>;
  /** The latest task seen: the submission's answer, then each query's. */
  latest: TaskResult | undefined;
  #sent = false;
  #outcome: Outcome | undefined;
  readonly #abort = new AbortController();
  readonly #listeners = new Set<(task: TaskResult) => void>();
  readonly #fed = new Set<string>();

  constructor(prepare: Prepare) {
    const signal = this.#abort.signal;
    const started = (async () => {
      const { send } = await prepare(signal);
      // The last moment a cancel stops the submission: from here on the POST is on its way.
      signal.throwIfAborted();
      this.#sent = true;
      return { call: send() };
    })();
    this.accepted = started.then(async ({ call }) => {
      const submission = await call;
      this.#see(submission as TaskResult);
      return submission;
    });
    this.accepted.catch(() => {});
    // The wait starts once the submission answered, so a cancel during the POST still keeps its task.
    this.done = this.accepted
      .then(async () => (await started).call.wait({ signal, onProgress: (task) => this.#see(task) }))
      .then(
        (task): Outcome => ({ task }),
        (error: unknown): Outcome => ({ error, task: this.latest }),
      )
      .then((outcome) => (this.#outcome = outcome));
  }

  /** The abort signal of everything this call does: its uploads, its wait, its result's downloads. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Whether the submission was sent (after which a cancel still keeps its task id). */
  get sent(): boolean {
    return this.#sent;
  }

  /** Whether the call was cancelled. */
  get cancelled(): boolean {
    return this.#abort.signal.aborted;
  }

  /** The service task's id, once the submission answered. */
  get taskId(): string | undefined {
    return this.latest?.task_id;
  }

  /** How it ended, once it has. */
  get outcome(): Outcome | undefined {
    return this.#outcome;
  }

  /** What rendering its result may spend: the images, and the time until `deadline` (epoch ms); under the call's signal. */
  budget(deadline: number, waitMs: number): RenderBudget {
    return new RenderBudget(this.signal, deadline, waitMs);
  }

  /** Stop what is not yet sent, and the wait (see the class). */
  cancel(reason: string): void {
    if (!this.#outcome) this.#abort.abort(new CallCancelled(reason));
  }

  /** Each change of the task's status (or attempt) from now on; returns the unsubscribe. */
  onChange(listener: (task: TaskResult) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** `true` the first time the MCP task `taskId` is fed from this call (a redelivered request gets the same task). */
  feeds(taskId: string): boolean {
    if (this.#fed.has(taskId)) return false;
    this.#fed.add(taskId);
    return true;
  }

  #see(task: TaskResult): void {
    const before = this.latest;
    this.latest = task;
    if (before && before.status === task.status && before.attempt_count === task.attempt_count) return;
    for (const listener of this.#listeners) listener(task);
  }
}

/** The most recent requests a server remembers, to answer a redelivery with the same call. */
const REMEMBERED_REQUESTS = 1_000;

/**
 * The calls of one server: by JSON-RPC request (session and id: MCP forbids reusing an id in a
 * session, so a repeat is a redelivery after a reconnect, and gets the same call, never a second
 * submission), by service task id while they run (for `get_task`), and every one not ended
 * (cancelled when the session closes, accepted or not).
 */
export class ToolCalls {
  readonly #byRequest = new BoundedMap<string, ToolCall>(REMEMBERED_REQUESTS);
  readonly #byTask = new Map<string, ToolCall>();
  readonly #running = new Set<ToolCall>();

  /** The call of this request: the one started for it before, else a new one. */
  forRequest(key: string, prepare: Prepare): ToolCall {
    const known = this.#byRequest.get(key);
    if (known) return known;
    const call = new ToolCall(prepare);
    this.#byRequest.set(key, call);
    this.#running.add(call);
    call.accepted.then(
      ({ task_id }) => {
        if (!call.outcome) this.#byTask.set(task_id, call);
      },
      () => {},
    );
    void call.done.then(() => {
      this.#running.delete(call);
      const taskId = call.taskId;
      if (taskId !== undefined && this.#byTask.get(taskId) === call) this.#byTask.delete(taskId);
    });
    return call;
  }

  /** The running call of a service task, if this server follows it. */
  forTask(taskId: string): ToolCall | undefined {
    return this.#byTask.get(taskId);
  }

  /** Cancel every call not ended (the server closes). */
  cancelAll(reason: string): void {
    for (const call of this.#running) call.cancel(reason);
  }
}

/** The key of a JSON-RPC request within its session (an id may be a number or a string: `1` and `"1"` differ). */
export const requestKey = (sessionId: string | undefined, requestId: string | number): string =>
  `${sessionId ?? ''}\u0000${typeof requestId}:${String(requestId)}`;
