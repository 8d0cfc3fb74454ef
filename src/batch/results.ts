/**
 * A batch's result lines: what became of each job, built from a task, an error, or a job that
 * never reached the service.
 */
import { APIError, TaskFailedError, ValidationError, type ValidationIssue } from '../errors.ts';
import { errorText } from '../internal/error-text.ts';
import type { BatchError, BatchResult, BatchStatus } from '../schemas/batch.ts';
import type { TaskResult } from '../schemas/task.ts';
import { isTerminalStatus } from '../waiting/status.ts';

/** An error as a result line writes it: its class, message, status, fail reason or issues. */
export function batchError(error: unknown): BatchError {
  const out: BatchError = {
    type: error instanceof Error ? error.name : 'Error',
    message: error instanceof Error ? error.message : errorText(error),
  };
  if (error instanceof APIError && error.status !== undefined) out.status = error.status;
  if (error instanceof TaskFailedError && error.failReason !== undefined) out.fail_reason = error.failReason;
  if (error instanceof ValidationError) out.issues = error.issues.map(({ path, message }) => ({ path, message }));
  return out;
}

/** The line of a job whose task was seen: its status, URLs, cost and attempts. */
export function taskLine(id: string, line: number | undefined, task: TaskResult, extra: { files?: string[]; error?: unknown } = {}): BatchResult {
  const result: BatchResult = {
    id,
    task_id: task.task_id,
    status: task.status,
    urls: (task.data ?? []).map((output) => output.url).filter((url): url is string => typeof url === 'string'),
    files: extra.files ?? [],
  };
  if (task.total_cost !== undefined) result.total_cost = task.total_cost;
  if (task.attempt_count !== undefined) result.attempt_count = task.attempt_count;
  if (extra.error !== undefined) result.error = batchError(extra.error);
  if (line !== undefined) result.line = line;
  return result;
}

/** The line of a job without a task to show: `unknown`, `refused`, `invalid` or `valid`. */
export function jobLine(id: string, line: number | undefined, status: BatchStatus, error?: unknown, taskId?: string): BatchResult {
  const result: BatchResult = { id, status, urls: [], files: [] };
  if (taskId !== undefined) result.task_id = taskId;
  if (error !== undefined) result.error = batchError(error);
  if (line !== undefined) result.line = line;
  return result;
}

/** The line of an invalid job: every problem, each naming its field. */
export function invalidLine(id: string, line: number, issues: readonly ValidationIssue[]): BatchResult {
  return jobLine(id, line, 'invalid', new ValidationError(issues, `job ${id}`));
}

/** `true` when a result line is the job's last word: the journal keeps it, and a resumed batch skips the job. */
export function isFinal(result: BatchResult): boolean {
  // Completed with an error: its download failed (done again on resume), or it has no usable result (final).
  if (result.error && result.status === 'completed') return result.error.type === 'UnusableResultError';
  return result.status === 'unknown' || isTerminalStatus(result.status);
}
