import type { TaskResult, TaskSubmission } from 'omnimedia';
import { BoundedMap } from '../internal/bounded-map.ts';
import type { Started } from './submit.ts';

/** How a job ended: the finished task, or the error (with the last task seen, if any). */
export type Outcome = { task: TaskResult } | { error: unknown; task: TaskResult | undefined };

/**
 * One submission and its wait, through the SDK's own `.wait()` (its cadence, callbacks and
 * fleet sharing): started once per tool call, whichever requests then look at it (the call
 * itself, its MCP task, a redelivery of the same request, `get_task`).
 */
export class Job {
  /** The submission, once the service accepted it (rejects as the submission does). */
  readonly accepted: Promise<TaskSubmission>;
  /** How it ended; never rejects. */
  readonly done: Promise<Outcome>;
  /** The latest task seen: the submission's answer, then each query's. */
  latest: TaskResult | undefined;
  #outcome: Outcome | undefined;
  readonly #listeners = new Set<(task: TaskResult) => void>();
  readonly #stop = new AbortController();

  constructor(start: () => Promise<Started>) {
    const started = start();
    this.accepted = started.then(async ({ call }) => {
      const submission = await call;
      this.#see(submission as TaskResult);
      return submission;
    });
    this.accepted.catch(() => {});
    this.done = started
      .then(({ call }) => call.wait({ signal: this.#stop.signal, onProgress: (task) => this.#see(task) }))
      .then(
        (task): Outcome => ({ task }),
        (error: unknown): Outcome => ({ error, task: this.latest }),
      )
      .then((outcome) => (this.#outcome = outcome));
  }

  /** How it ended, once it has. */
  get outcome(): Outcome | undefined {
    return this.#outcome;
  }

  /** Each change of the task's status (or attempt) from now on; returns the unsubscribe. */
  onChange(listener: (task: TaskResult) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stop following the task (the service task runs on; it cannot be cancelled). */
  stop(reason: string): void {
    this.#stop.abort(new Error(reason));
  }

  #see(task: TaskResult): void {
    const before = this.latest;
    this.latest = task;
    if (before && before.status === task.status && before.attempt_count === task.attempt_count) return;
    for (const listener of this.#listeners) listener(task);
  }
}

/** The most recent requests a server remembers, to answer a redelivery with the same job. */
const REMEMBERED_REQUESTS = 1_000;

/**
 * The jobs of one server: by JSON-RPC request (session and id: MCP forbids reusing an id in a
 * session, so a repeat is a redelivery after a reconnect, and gets the same job, never a second
 * submission), and by service task id while they run (for `get_task`).
 */
export class Jobs {
  readonly #byRequest = new BoundedMap<string, Job>(REMEMBERED_REQUESTS);
  readonly #byTask = new Map<string, Job>();

  /** The job of this request: the one started for it before, else a new one from `submit`. */
  forRequest(key: string, submit: () => Promise<Started>): Job {
    const known = this.#byRequest.get(key);
    if (known) return known;
    const job = new Job(submit);
    this.#byRequest.set(key, job);
    job.accepted.then(
      ({ task_id }) => {
        if (job.outcome) return;
        this.#byTask.set(task_id, job);
        void job.done.then(() => this.#byTask.get(task_id) === job && this.#byTask.delete(task_id));
      },
      () => {},
    );
    return job;
  }

  /** The running job of a service task, if this server follows it. */
  forTask(taskId: string): Job | undefined {
    return this.#byTask.get(taskId);
  }

  /** Stop following every task (the server closes). */
  stopAll(reason: string): void {
    for (const job of this.#byTask.values()) job.stop(reason);
  }
}

/** The key of a JSON-RPC request within its session (an id may be a number or a string: `1` and `"1"` differ). */
export const requestKey = (sessionId: string | undefined, requestId: string | number): string =>
  `${sessionId ?? ''}\u0000${typeof requestId}:${String(requestId)}`;
