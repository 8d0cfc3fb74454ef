import type { TaskResult } from '../schemas/task.ts';
import { OmniMediaError, TaskFailedError, WaitTimeoutError } from './errors.ts';
import { isRetryable, retryDelay } from './retry.ts';
import { sleep } from './sleep.ts';
import { isFailureStatus, isSuccessStatus } from './status.ts';
import type { WaitOptions } from './task-promise.ts';

export const DEFAULT_INITIAL_DELAY_MS = 3_000;
export const DEFAULT_INTERVAL_MS = 2_000;
export const DEFAULT_MAX_INTERVAL_MS = 15_000;
export const DEFAULT_IMAGE_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_VIDEO_TIMEOUT_MS = 30 * 60_000;
const GROWTH = 1.5;

export interface PollTarget {
  taskId: string;
  /** When the task was submitted (ms since epoch), if known; the first query is timed from it. */
  submittedAt?: number | undefined;
  /** Default deadline when the caller gives none. */
  defaultTimeout: number;
  retrieve(signal: AbortSignal | undefined): Promise<TaskResult>;
}

/** The last `fail_reason` of a failed task: the task's own, else its last failed attempt's. */
export function lastFailReason(task: TaskResult): string | undefined {
  if (task.fail_reason) return task.fail_reason;
  const failed = (task.attempts ?? []).filter((a) => a.fail_reason);
  return failed.at(-1)?.fail_reason ?? undefined;
}

/** Poll until the task ends: resolve when it completes, reject on failure, deadline or abort. */
export async function waitForTask(target: PollTarget, options: WaitOptions = {}): Promise<TaskResult> {
  const started = Date.now();
  const timeout = options.timeout ?? target.defaultTimeout;
  const deadline = started + timeout;
  const initialDelay = options.initialDelay ?? DEFAULT_INITIAL_DELAY_MS;
  const maxInterval = options.maxInterval ?? DEFAULT_MAX_INTERVAL_MS;
  let interval = options.interval ?? DEFAULT_INTERVAL_MS;
  let polls = 0;
  let failures = 0;
  let last: TaskResult | undefined;

  const firstAt = target.submittedAt === undefined ? started : target.submittedAt + initialDelay;
  let nextAt = Math.max(started, firstAt);

  for (;;) {
    const wake = Math.min(nextAt, deadline);
    if (wake > Date.now()) await sleep(wake - Date.now(), options.signal);
    if (Date.now() >= deadline && nextAt > deadline) throw new WaitTimeoutError(target.taskId, timeout, last);
    options.signal?.throwIfAborted();
    try {
      polls++;
      last = await target.retrieve(options.signal);
      failures = 0;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (!isRetryable(error, 'query')) {
        if (error instanceof OmniMediaError) error.taskId ??= target.taskId;
        throw error;
      }
      failures++;
      nextAt = Date.now() + (retryDelay(error, 'query', failures) ?? interval);
      continue;
    }
    options.onProgress?.(last, { elapsedMs: Date.now() - started, polls });
    if (isSuccessStatus(last.status)) return last;
    if (isFailureStatus(last.status)) throw new TaskFailedError(last, lastFailReason(last));
    nextAt = Date.now() + interval;
    interval = Math.min(interval * GROWTH, maxInterval);
  }
}
