import type { TaskResult } from '../schemas/task.ts';

/**
 * Options of `.wait()`, `client.tasks.wait()` and `client.tasks.watch()`. See the README, "Waiting for results".
 *
 * @example
 * ```ts
 * const task = await client.videos.generate({ prompt: 'a fox' }).wait({
 *   timeout: 20 * 60_000,
 *   onProgress: (t, { elapsedMs }) => console.log(t.status, Math.round(elapsedMs / 1000), 's'),
 * });
 * ```
 */
export interface WaitOptions {
  /**
   * Deadline for the whole wait in ms, from when it starts; then `WaitTimeoutError`. Default:
   * 10 min for images, 30 min for videos and for `tasks.wait` by id.
   */
  timeout?: number;
  /** Abort the wait: it rejects with the signal's reason, a sleep in progress ends at once. */
  signal?: AbortSignal;
  /** Called with each task seen (each query, and a task delivered by a verified callback). */
  onProgress?: (task: TaskResult, info: { elapsedMs: number; polls: number }) => void;
  /** ms from submission to the first query. Default 3000, the spec's recommendation. */
  initialDelay?: number;
  /** ms between the first two queries; each next gap is 1.5 times longer. Default 3000. */
  interval?: number;
  /** The gap between queries never grows beyond this many ms (before ±10 % jitter). Default 30,000. */
  maxInterval?: number;
  /**
   * Use what this client learned about how long tasks of the same kind take, to query densely
   * around their expected end instead of from scratch. Default `true`.
   */
  learn?: boolean;
}

/**
 * The submission, as a Promise, with `.wait()` to poll the task to its end:
 * `await client.images.generate(p)` gives the submission (`task_id`, `status`),
 * `await client.images.generate(p).wait()` gives the finished task.
 *
 * @example
 * ```ts
 * const pending = client.images.generate({ model: 'omni-image', prompt: 'a lighthouse' });
 * const { task_id } = await pending;   // the submission
 * const done = await pending.wait();   // the finished task (the same submission, not a second one)
 * ```
 */
export type TaskPromise<Submission> = Promise<Submission> & {
  /** Poll the submitted task until it completes. Rejects with `TaskFailedError` if it fails. */
  wait(options?: WaitOptions): Promise<TaskResult>;
};

/** Attach `.wait()` to a submission promise. The submission is awaited before any sleep. */
export function taskPromise<Submission extends { task_id: string }>(
  submission: Promise<Submission>,
  wait: (submission: Submission, options: WaitOptions | undefined) => Promise<TaskResult>,
): TaskPromise<Submission> {
  return Object.assign(submission, {
    wait: (options?: WaitOptions) => submission.then((s) => wait(s, options)),
  });
}
