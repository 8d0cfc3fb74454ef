// The errors layer's file for UnusableResultError (errors.ts is at its 400 lines); every other
// error class is in errors.ts.
import { OmniMediaError } from '../errors.ts';
import { shownQuoted } from '../internal/error-text.ts';
import type { TaskResult } from '../schemas/task.ts';
import { keptInError } from './service-data.ts';

/**
 * A task's results cannot be used: no result URL, or one that is not an absolute http(s),
 * `data:` or `blob:` URL, or one with credentials. Not a `ValidationError`: the task exists
 * (and may be billed), and `taskId` and `task` say which.
 *
 * @example
 * ```ts
 * if (err instanceof UnusableResultError) console.log(err.taskId, err.task.status, err.task.data);
 * ```
 */
export class UnusableResultError extends OmniMediaError {
  /** `'UnusableResultError'`, the class's name (kept through minification). */
  override name = 'UnusableResultError';
  /** The task as given or read, with its `status` and `data`. */
  declare readonly task: TaskResult;
  /** The task's id. */
  declare taskId: string;

  /** @param problem what is wrong with its results (`data[1].url must be an absolute URL`). */
  constructor(task: TaskResult, problem: string) {
    // A caller's task may hold anything as its status: shown by its kind, its toString never called.
    super(`Task ${task.task_id} (status ${shownQuoted(task.status)}) has no usable result: ${problem}`, { taskId: task.task_id });
    this.task = keptInError(task);
  }
}
