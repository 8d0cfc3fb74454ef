import type * as z from 'zod/mini';
import type { OmniMedia } from '../client.ts';
import { taskPromise, type TaskPromise } from './task-promise.ts';
import { loadValidation, type Validation } from './validation.ts';

/**
 * Per-call options of every request method.
 *
 * @example
 * ```ts
 * const submission = await client.images.generate(
 *   { model: 'omni-image', prompt: 'a lighthouse' },
 *   { timeout: 10_000, maxRetries: 0, signal: AbortSignal.timeout(15_000) },
 * );
 * ```
 */
export interface RequestOptions {
  /** Abort the request (and any retry sleep). */
  signal?: AbortSignal;
  /** Per-request timeout in ms; overrides the client's. */
  timeout?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

export interface Submission<S extends z.core.$ZodType> {
  path: string;
  what: string;
  /** Validates the params and builds the JSON body; throws `ValidationError` before any request. */
  body: (validation: Validation) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Picks the response's schema from the (lazily loaded) validation module. */
  schema: (validation: Validation) => S;
  /** The wait's deadline when the caller gives none. */
  defaultTimeout: number;
}

/**
 * POST a task submission (never retried once the service may have taken it) and return it as
 * a `TaskPromise`, whose `.wait()` times its first query from the moment of submission.
 */
export function submitTask<S extends z.core.$ZodType>(
  client: OmniMedia,
  submission: Submission<S>,
  options: RequestOptions = {},
): TaskPromise<z.output<S> & { task_id: string }> {
  let submittedAt = 0;
  const sent = (async () => {
    const validation = await loadValidation();
    const json = await submission.body(validation);
    submittedAt = Date.now();
    const body = await client.http.request({
      method: 'POST',
      path: submission.path,
      auth: true,
      retry: 'submission',
      json,
      what: submission.what,
      signal: options.signal,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
    });
    return validation.parseResponse(submission.schema(validation), body, submission.what) as z.output<S> & { task_id: string };
  })();
  return taskPromise(sent, (task, waitOptions) =>
    client.tasks.wait(task.task_id, { ...waitOptions, submittedAt, defaultTimeout: submission.defaultTimeout }),
  );
}
