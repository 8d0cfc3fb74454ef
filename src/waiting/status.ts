const SUCCESS = new Set(['completed', 'succeeded', 'success']);
const FAILURE = new Set(['failed', 'failure', 'error', 'cancelled', 'canceled', 'expired', 'timeout', 'timed_out', 'rejected']);

/**
 * `true` for a status that means the task finished with results.
 *
 * @example
 * ```ts
 * const task = await client.tasks.retrieve(id);
 * if (isSuccessStatus(task.status)) console.log(task.data?.[0]?.url);
 * ```
 */
export function isSuccessStatus(status: string): boolean {
  return SUCCESS.has(status.toLowerCase());
}

/**
 * `true` for a status that means the task ended without results.
 *
 * @example
 * ```ts
 * if (isFailureStatus(task.status)) console.log('failed:', task.fail_reason);
 * ```
 */
export function isFailureStatus(status: string): boolean {
  return FAILURE.has(status.toLowerCase());
}

/**
 * `true` once a task can no longer change. Unknown statuses are not terminal.
 *
 * @example
 * ```ts
 * if (!isTerminalStatus(task.status)) console.log('still running:', task.status);
 * ```
 */
export function isTerminalStatus(status: string): boolean {
  return isSuccessStatus(status) || isFailureStatus(status);
}
