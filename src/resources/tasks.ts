import { DEFAULT_VIDEO_TIMEOUT_MS, pollTarget, waitForTask, watchTask } from '../waiting/poller.ts';
import { APIError, ValidationError } from '../errors.ts';
import type { WaitOptions } from '../waiting/task-promise.ts';
import { loadValidation } from '../schemas/load.ts';
import type { TaskResult } from '../schemas/task.ts';
import { taskIdProblem } from '../schemas/task-id.ts';
import { APIResource } from './resource.ts';

/** The task id rule (`taskIdProblem`), before any request: a `ValidationError` naming it. */
function checkTaskId(taskId: unknown, context: string): void {
  const message = taskIdProblem(taskId);
  if (message) throw new ValidationError([{ path: '', message }], context);
}

/**
 * Options of `tasks.retrieve`.
 *
 * @example
 * ```ts
 * const task = await client.tasks.retrieve('task_123', { timeout: 5_000, maxRetries: 1 });
 * ```
 */
export interface RetrieveOptions {
  signal?: AbortSignal;
  /** ms for each attempt's whole exchange (connection, headers and body). Default: the client's `timeout`. */
  timeout?: number;
  /** Retries of transient failures (network, 5xx, 429). Default: the client's `maxRetries`. */
  maxRetries?: number;
}

/**
 * `GET /v1/tasks/{id}`, and waiting on it. Needs no API key.
 *
 * @example
 * ```ts
 * const keyless = new OmniMedia({ baseURL: 'https://media.example.com' });
 * const task = await keyless.tasks.wait('task_123');
 * ```
 */
export class Tasks extends APIResource {
  /**
   * Read a task. Needs no API key (the endpoint is public), so a keyless client can poll.
   *
   * @example
   * ```ts
   * const task = await client.tasks.retrieve('task_123');
   * if (task.status === 'completed') console.log(task.data?.[0]?.url);
   * ```
   */
  async retrieve(taskId: string, options: RetrieveOptions = {}): Promise<TaskResult> {
    checkTaskId(taskId, 'tasks.retrieve task id');
    const what = `tasks.retrieve(${taskId})`;
    const { parseResponse, TaskResultSchema } = await loadValidation();
    return this.client.http.request({
      method: 'GET',
      path: `v1/tasks/${encodeURIComponent(taskId)}`,
      auth: false,
      retry: 'idempotent',
      what,
      taskId,
      signal: options.signal,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
      parse: (body, meta) => {
        const task = parseResponse(TaskResultSchema, body, what, { ...meta, taskId });
        // A confused cache or gateway may answer with another task: never take it for ours.
        if (task.task_id !== taskId)
          throw new APIError(`${what}: the service answered with another task, ${task.task_id}`, { ...meta, taskId });
        return task;
      },
    });
  }

  /**
   * Wait for a task until it completes: resume a wait by id (after a restart, in another
   * process). The first query is sent at once; the cadence, options and outcomes are those of
   * `.wait()` (README, "Waiting for results"). The default deadline is 30 minutes.
   *
   * @example
   * ```ts
   * const task = await client.tasks.wait('task_123', { timeout: 120_000 });
   * console.log(task.data?.[0]?.url);
   * ```
   */
  async wait(taskId: string, options?: WaitOptions): Promise<TaskResult> {
    checkTaskId(taskId, 'tasks.wait task id');
    return waitForTask(pollTarget(this.client, taskId, { defaultTimeout: DEFAULT_VIDEO_TIMEOUT_MS }), options);
  }

  /**
   * Follow a task: yields the task at the first query and again each time its status or
   * attempts change, and ends when it completes (after yielding it). A failed task is yielded,
   * then `TaskFailedError` is thrown; deadline and abort end it as they end `wait`. `break`
   * stops polling at once.
   *
   * @example
   * ```ts
   * for await (const task of client.tasks.watch('task_123')) {
   *   console.log(task.status, task.attempt_count);
   * }
   * ```
   */
  async *watch(taskId: string, options?: WaitOptions): AsyncGenerator<TaskResult, void, undefined> {
    checkTaskId(taskId, 'tasks.watch task id');
    yield* watchTask(pollTarget(this.client, taskId, { defaultTimeout: DEFAULT_VIDEO_TIMEOUT_MS }), options);
  }
}
