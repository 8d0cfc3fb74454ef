import type { TaskAttempt, TaskResult } from './schemas/task.ts';
import { keptInError } from './errors/service-data.ts';

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
  // Fields assigned in a constructor are `declare`d here and below: nothing emitted for them
  // but the assignment (see client.ts).
  /** The task this error concerns, once a task exists. */
  declare taskId: string | undefined;

  /** Its message and cause chain hold no URL credentials or tokens (errors/service-data.ts). */
  constructor(message: string, options?: { cause?: unknown; taskId?: string | undefined }) {
    super(keptInError(message), options?.cause === undefined ? undefined : { cause: keptInError(options.cause) });
    this.taskId = options?.taskId;
  }

  /** `'OmniMediaError'`, the class's name (kept through minification). */
  override name = 'OmniMediaError';

  /**
   * What `JSON.stringify(err)` writes: the name, the message and the error's own fields
   * (`status`, `body`, `headers` as an object, `taskId`...). Like the fields themselves, it
   * never holds the API key.
   *
   * @example
   * ```ts
   * logger.error({ err: JSON.parse(JSON.stringify(err)) }); // { name, message, status, taskId, ... }
   * ```
   */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      out[key] = typeof Headers !== 'undefined' && value instanceof Headers ? Object.fromEntries(value) : value;
    }
    return out;
  }
}

/**
 * One problem found in the input: the field (its path) and the rule it broke.
 *
 * @example
 * ```ts
 * catch (err) {
 *   if (err instanceof ValidationError) for (const { path, message } of err.issues) console.log(`${path}: ${message}`);
 * }
 * ```
 */
export interface ValidationIssue {
  /** The field, as a path into the input (`image[2]`, `messages[0].content`, `timeout`); `''` for the input as a whole. */
  path: string;
  /** The rule it broke, e.g. `must be 1 to 4,000 characters`. */
  message: string;
}

/**
 * The input broke a rule of the service. Thrown before any request is sent.
 *
 * @example
 * ```ts
 * const err = await client.images.generate({ model: 'omni-image', prompt: 'a cat', size: '1000x1000' }).catch((e) => e);
 * if (err instanceof ValidationError) console.log(err.issues); // [{ path: 'size', message: 'both sides must be multiples of 16 ...' }]
 * ```
 */
export class ValidationError extends OmniMediaError {
  /** `'ValidationError'`, the class's name (kept through minification). */
  override name = 'ValidationError';
  /** Every problem found, each naming its field and the rule (all of them, not only the first). */
  declare readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], context?: string) {
    const list = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    super(context ? `Invalid ${context}: ${list}` : list);
    this.issues = issues;
  }
}

/**
 * Fields shared by every error that concerns an HTTP exchange with the service.
 *
 * @example
 * ```ts
 * // What a custom fetch wrapper or a test double can build an error from:
 * const error = new APIError('the service said no', { status: 418, body: { error: 'teapot' }, requestId: 'req_1' });
 * ```
 */
export interface APIErrorInit {
  /** The HTTP status; `undefined` when no response came back. */
  status?: number | undefined;
  /** The response body, parsed as JSON when it is JSON, else the raw text. */
  body?: unknown;
  /** The response headers. */
  headers?: Headers | undefined;
  /** The service's request id (`x-request-id`), for a support ticket. */
  requestId?: string | undefined;
  /** The task the exchange concerned, once one exists. */
  taskId?: string | undefined;
  /** The underlying error (a network failure, an abort). */
  cause?: unknown;
}

/**
 * The service answered with an error status, or could not be reached. `status` is
 * `undefined` when no response came back (connection errors, timeouts, and the local
 * missing-key check).
 *
 * @example
 * ```ts
 * try {
 *   await client.images.generate({ model: 'omni-image', prompt: 'a cat' });
 * } catch (err) {
 *   if (err instanceof APIError) console.log(err.status, err.requestId, err.body);
 * }
 * ```
 */
export class APIError extends OmniMediaError {
  /** `'APIError'`, the class's name (kept through minification). */
  override name = 'APIError';
  /** The HTTP status; `undefined` when no response came back (connection error, timeout, the local missing-key check). */
  declare readonly status: number | undefined;
  /** The error body exactly as the service sent it: its shape is not in the spec. */
  declare readonly body: unknown;
  /** The response headers (`Retry-After`, `x-request-id`...); `undefined` when no response came back. */
  declare readonly headers: Headers | undefined;
  /** From the `x-request-id` (or `request-id`) response header, when present. */
  declare readonly requestId: string | undefined;

  constructor(message: string, init: APIErrorInit = {}) {
    super(message, { cause: init.cause, taskId: init.taskId });
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers;
    this.requestId = init.requestId;
  }
}

/**
 * 400: the service rejected the parameters; also 413, a body over a limit (an upload through
 * `omnimedia/proxy` past 25/50 MiB).
 *
 * @example
 * ```ts
 * if (err instanceof BadRequestError) console.log('rejected:', err.body);
 * ```
 */
export class BadRequestError extends APIError {
  /** `'BadRequestError'`, the class's name (kept through minification). */
  override name = 'BadRequestError';
}
/**
 * 401: the key is missing, invalid or expired. Also thrown locally when a call that needs a key has none.
 *
 * @example
 * ```ts
 * if (err instanceof AuthenticationError) console.log('check OMNIMEDIA_API_KEY');
 * ```
 */
export class AuthenticationError extends APIError {
  /** `'AuthenticationError'`, the class's name (kept through minification). */
  override name = 'AuthenticationError';
}
/**
 * 402: the account balance does not cover the task.
 *
 * @example
 * ```ts
 * if (err instanceof InsufficientBalanceError) notifyBilling(err.taskId);
 * ```
 */
export class InsufficientBalanceError extends APIError {
  /** `'InsufficientBalanceError'`, the class's name (kept through minification). */
  override name = 'InsufficientBalanceError';
}
/**
 * 403: the key's explicit model scope does not include this model.
 *
 * @example
 * ```ts
 * if (err instanceof PermissionDeniedError) console.log('this key may not use that model');
 * ```
 */
export class PermissionDeniedError extends APIError {
  /** `'PermissionDeniedError'`, the class's name (kept through minification). */
  override name = 'PermissionDeniedError';
}
/**
 * 404: no such task (or path).
 *
 * @example
 * ```ts
 * const task = await client.tasks.retrieve(id).catch((err) => (err instanceof NotFoundError ? undefined : Promise.reject(err)));
 * ```
 */
export class NotFoundError extends APIError {
  /** `'NotFoundError'`, the class's name (kept through minification). */
  override name = 'NotFoundError';
}

/**
 * 429: request rate or quota limit. `retryAfter` is in seconds, from the `Retry-After` header.
 *
 * @example
 * ```ts
 * if (err instanceof RateLimitError) await new Promise((r) => setTimeout(r, (err.retryAfter ?? 1) * 1000));
 * ```
 */
export class RateLimitError extends APIError {
  /** `'RateLimitError'`, the class's name (kept through minification). */
  override name = 'RateLimitError';
  /** Seconds to wait before the next request, from the `Retry-After` header; `undefined` when it had none. */
  declare readonly retryAfter: number | undefined;

  constructor(message: string, init: APIErrorInit & { retryAfter?: number | undefined } = {}) {
    super(message, init);
    this.retryAfter = init.retryAfter;
  }
}

/**
 * 5xx: the service failed.
 *
 * @example
 * ```ts
 * if (err instanceof InternalServerError) console.log('service error', err.status, err.requestId);
 * ```
 */
export class InternalServerError extends APIError {
  /** `'InternalServerError'`, the class's name (kept through minification). */
  override name = 'InternalServerError';
}
/**
 * 503: no provider is available right now. A submission that got it was not accepted.
 *
 * @example
 * ```ts
 * if (err instanceof ServiceUnavailableError) console.log('no provider now; the task was not created');
 * ```
 */
export class ServiceUnavailableError extends InternalServerError {
  /** `'ServiceUnavailableError'`, the class's name (kept through minification). */
  override name = 'ServiceUnavailableError';
}

/**
 * The request could not be completed: DNS, refused or reset connection, offline.
 *
 * @example
 * ```ts
 * if (err instanceof APIConnectionError) console.log('could not reach the service:', err.message);
 * ```
 */
export class APIConnectionError extends APIError {
  /** `'APIConnectionError'`, the class's name (kept through minification). */
  override name = 'APIConnectionError';
}
/**
 * The request took longer than the `timeout` option.
 *
 * @example
 * ```ts
 * const client = new OmniMedia({ timeout: 5_000 });
 * // ...
 * if (err instanceof APITimeoutError) console.log('no answer within 5 s');
 * ```
 */
export class APITimeoutError extends APIConnectionError {
  /** `'APITimeoutError'`, the class's name (kept through minification). */
  override name = 'APITimeoutError';
}

/**
 * The task ended in a failure status. `task` is the last task seen.
 *
 * @example
 * ```ts
 * try {
 *   await client.videos.generate({ prompt: 'a fox' }).wait();
 * } catch (err) {
 *   if (err instanceof TaskFailedError) console.log(err.taskId, err.failReason, err.task.attempts);
 * }
 * ```
 */
export class TaskFailedError extends OmniMediaError {
  /** `'TaskFailedError'`, the class's name (kept through minification). */
  override name = 'TaskFailedError';
  /** The last task seen, with its `status` and `fail_reason`. */
  declare readonly task: TaskResult;
  /** The last `fail_reason`: the task's own, else that of its last failed attempt. */
  declare readonly failReason: string | undefined;
  /** The task's attempts (`task.attempts`, empty when it had none), each with its provider, status and `fail_reason`. */
  declare readonly attempts: readonly TaskAttempt[];

  /** `failReason` defaults to the task's own `fail_reason`, else its last failed attempt's. */
  constructor(task: TaskResult, failReason?: string) {
    const attempts = task.attempts ?? [];
    failReason ??= task.fail_reason || attempts.findLast((a) => a.fail_reason)?.fail_reason;
    super(
      `Task ${task.task_id} ended with status "${task.status}"${failReason ? ` (${failReason})` : ''}` +
        (attempts.length > 1 ? ` after ${attempts.length} attempts` : ''),
      { taskId: task.task_id },
    );
    this.task = keptInError(task);
    this.failReason = failReason;
    this.attempts = attempts;
  }
}

/**
 * The wait's deadline passed before the task ended. The task may still finish: wait again by id.
 * Not generic: `err.lastTask` is a `TaskResult` after `err instanceof WaitTimeoutError` (a
 * generic class would narrow to `WaitTimeoutError<any>`).
 *
 * @example
 * ```ts
 * try {
 *   await client.tasks.wait(id, { timeout: 60_000 });
 * } catch (err) {
 *   if (err instanceof WaitTimeoutError) console.log('still running:', err.lastTask);
 * }
 * ```
 */
export class WaitTimeoutError extends OmniMediaError {
  /** `'WaitTimeoutError'`, the class's name (kept through minification). */
  override name = 'WaitTimeoutError';
  /** The task as the last query saw it (its `status`, `progress`); `undefined` when no query answered. */
  declare readonly lastTask: TaskResult | undefined;
  /** The task waited for. */
  declare taskId: string;

  /** @param cause the error of the last query, when it failed (a service that cannot be reached). */
  constructor(taskId: string, timeoutMs: number, lastTask: TaskResult | undefined, cause?: unknown) {
    super(`Task ${taskId} did not finish within ${timeoutMs} ms; wait again with client.tasks.wait('${taskId}')`, {
      taskId,
      cause,
    });
    this.lastTask = keptInError(lastTask);
  }
}

/**
 * Why a callback delivery was rejected.
 *
 * @example
 * ```ts
 * if (err instanceof CallbackError && err.reason === 'too_large') return new Response(null, { status: 413 });
 * ```
 */
export type CallbackErrorReason =
  | 'too_large'
  | 'invalid_body'
  | 'invalid_json'
  | 'invalid_shape'
  | 'unauthorized'
  | 'unknown_task';

/**
 * A callback body was not a well-formed task result, or failed verification.
 *
 * @example
 * ```ts
 * try {
 *   const task = await parseCallback(await request.text());
 * } catch (err) {
 *   if (err instanceof CallbackError) return new Response(err.reason, { status: 400 });
 *   throw err;
 * }
 * ```
 */
export class CallbackError extends OmniMediaError {
  /** `'CallbackError'`, the class's name (kept through minification). */
  override name = 'CallbackError';
  /** Why the delivery was rejected; see {@link CallbackErrorReason}. */
  declare readonly reason: CallbackErrorReason;

  constructor(reason: CallbackErrorReason, message: string, options?: { cause?: unknown; taskId?: string | undefined }) {
    super(message, options);
    this.reason = reason;
  }
}
