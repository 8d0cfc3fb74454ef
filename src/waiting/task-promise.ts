import type { WaitOptions } from '../options.ts';
import type { TaskResult } from '../schemas/task.ts';

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
