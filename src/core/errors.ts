/**
 * Every error the SDK throws is an `OmniMediaError`. Errors raised after a task was submitted
 * carry its `taskId`, so a task is never lost to an exception.
 *
 * @example
 * ```ts
 * try {
 *   await client.videos.generate({ prompt: 'a fox' }).wait();
 * } catch (err) {
 *   if (err instanceof TaskFailedError) console.log(err.taskId, err.failReason);
 *   else if (err instanceof RateLimitError) console.log('retry after', err.retryAfter);
 *   else throw err;
 * }
 * ```
 */
export class OmniMediaError extends Error {
  /** The task this error concerns, once a task exists. */
  taskId: string | undefined;

  constructor(message: string, options?: { cause?: unknown; taskId?: string | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.taskId = options?.taskId;
  }

  override name = 'OmniMediaError';
}

/** One problem found in the input: the field (dotted path) and the rule it broke. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** The input broke a rule of the service. Thrown before any request is sent. */
export class ValidationError extends OmniMediaError {
  override name = 'ValidationError';
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], context?: string) {
    const list = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    super(context ? `Invalid ${context}: ${list}` : list);
    this.issues = issues;
  }
}

/** Fields shared by every error that concerns an HTTP exchange with the service. */
export interface APIErrorInit {
  status?: number | undefined;
  /** The response body, parsed as JSON when it is JSON, else the raw text. */
  body?: unknown;
  headers?: Headers | undefined;
  requestId?: string | undefined;
  taskId?: string | undefined;
  cause?: unknown;
}

/**
 * The service answered with an error status, or could not be reached. `status` is
 * `undefined` when no response came back (connection errors, timeouts, and the local
 * missing-key check).
 */
export class APIError extends OmniMediaError {
  override name = 'APIError';
  readonly status: number | undefined;
  /** The error body exactly as the service sent it: its shape is not in the spec. */
  readonly body: unknown;
  readonly headers: Headers | undefined;
  /** From the `x-request-id` (or `request-id`) response header, when present. */
  readonly requestId: string | undefined;

  constructor(message: string, init: APIErrorInit = {}) {
    super(message, { cause: init.cause, taskId: init.taskId });
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers;
    this.requestId = init.requestId;
  }
}

/** 400: the service rejected the parameters. */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
/** 401: the key is missing, invalid or expired. Also thrown locally when a call that needs a key has none. */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
/** 402: the account balance does not cover the task. */
export class InsufficientBalanceError extends APIError {
  override name = 'InsufficientBalanceError';
}
/** 403: the key's explicit model scope does not include this model. */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
/** 404: no such task (or path). */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}

/** 429: request rate or quota limit. `retryAfter` is in seconds, from the `Retry-After` header. */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  readonly retryAfter: number | undefined;

  constructor(message: string, init: APIErrorInit & { retryAfter?: number | undefined } = {}) {
    super(message, init);
    this.retryAfter = init.retryAfter;
  }
}

/** 5xx: the service failed. */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}
/** 503: no provider is available right now. A submission that got it was not accepted. */
export class ServiceUnavailableError extends InternalServerError {
  override name = 'ServiceUnavailableError';
}

/** The request could not be completed: DNS, refused or reset connection, offline. */
export class APIConnectionError extends APIError {
  override name = 'APIConnectionError';
}
/** The request took longer than the `timeout` option. */
export class APITimeoutError extends APIConnectionError {
  override name = 'APITimeoutError';
}

/** The task ended in a failure status. `task` is the last task seen. */
export class TaskFailedError<Task extends { task_id: string; status: string } = {
  task_id: string;
  status: string;
  fail_reason?: string | undefined;
  attempts?: readonly { fail_reason?: string | undefined }[] | undefined;
}> extends OmniMediaError {
  override name = 'TaskFailedError';
  readonly task: Task;
  /** The last `fail_reason`: the task's own, else that of its last failed attempt. */
  readonly failReason: string | undefined;
  /** The task's attempts (`task.attempts`), each with its provider, status and `fail_reason`. */
  readonly attempts: Task extends { attempts?: infer A } ? NonNullable<A> : readonly unknown[];

  constructor(task: Task, failReason: string | undefined) {
    const attempts = (task as { attempts?: readonly unknown[] | null }).attempts ?? [];
    super(
      `Task ${task.task_id} ended with status "${task.status}"${failReason ? ` (${failReason})` : ''}` +
        (attempts.length > 1 ? ` after ${attempts.length} attempts` : ''),
      { taskId: task.task_id },
    );
    this.task = task;
    this.failReason = failReason;
    this.attempts = attempts as typeof this.attempts;
  }
}

/** The wait's deadline passed before the task ended. The task may still finish: wait again by id. */
export class WaitTimeoutError<Task = unknown> extends OmniMediaError {
  override name = 'WaitTimeoutError';
  readonly lastTask: Task | undefined;
  declare taskId: string;

  constructor(taskId: string, timeoutMs: number, lastTask: Task | undefined) {
    super(`Task ${taskId} did not finish within ${timeoutMs} ms; wait again with client.tasks.wait('${taskId}')`, {
      taskId,
    });
    this.lastTask = lastTask;
  }
}

/** Why a callback delivery was rejected. */
export type CallbackErrorReason =
  | 'too_large'
  | 'invalid_body'
  | 'invalid_json'
  | 'invalid_shape'
  | 'unauthorized'
  | 'unknown_task';

/** A callback body was not a well-formed task result, or failed verification. */
export class CallbackError extends OmniMediaError {
  override name = 'CallbackError';
  readonly reason: CallbackErrorReason;

  constructor(reason: CallbackErrorReason, message: string, options?: { cause?: unknown; taskId?: string | undefined }) {
    super(message, options);
    this.reason = reason;
  }
}
