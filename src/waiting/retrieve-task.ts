import { APIError } from '../errors.ts';
import type { RetrieveOptions } from '../options.ts';
import type { TaskResult } from '../schemas/task.ts';
import type { TelemetrySpan } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';
import { TASK_ANSWER } from '../schemas/answers.ts';
import { parseResponse } from '../validation/answers.ts';

/**
 * `GET /v1/tasks/{id}`: the task query, the one read of a task that waits, `tasks.retrieve`
 * and callback verification share. The answer must be the task asked for: a confused cache
 * or gateway answering with another task is an `APIError` naming both ids, never a result.
 * The caller has checked `taskId` (see `taskIdProblem`). `span`: the call it is made for, when
 * telemetry is on; `call`: the call its errors name (a wait's errors name the wait).
 * Not `async`: it hands over the request's own promise (nothing here throws), one async frame,
 * promise and two ticks fewer on every task query.
 */
export function retrieveTask(
  http: HttpClient,
  taskId: string,
  options: RetrieveOptions = {},
  span?: TelemetrySpan,
  call = 'tasks.retrieve',
): Promise<TaskResult> {
  const what = `${call}(${taskId})`;
  return http.request({
    method: 'GET',
    path: `v1/tasks/${encodeURIComponent(taskId)}`,
    span,
    auth: false,
    retry: 'idempotent',
    what,
    taskId,
    signal: options.signal,
    timeout: options.timeout,
    maxRetries: options.maxRetries,
    parse: (body, meta) => {
      const task = parseResponse<TaskResult>(TASK_ANSWER, body, what, meta);
      if (task.task_id !== taskId) throw new APIError(`${what}: the service answered with another task, ${task.task_id}`, meta);
      return task;
    },
  });
}
