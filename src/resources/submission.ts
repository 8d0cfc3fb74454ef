import type * as z from 'zod/mini';
import type { OmniMedia } from '../client.ts';
import { pollTarget, waitForTask } from '../waiting/poller.ts';
import { taskPromise, type TaskPromise } from '../waiting/task-promise.ts';
import { loadValidation, type Validation } from '../schemas/load.ts';

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
  /** ms for each attempt's whole exchange (connection, headers and body); overrides the client's. */
  timeout?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

export interface Submission<S extends z.core.$ZodType> {
  path: string;
  what: string;
  /**
   * Validates the params and builds the JSON body (uploading any file objects first, under the
   * call's signal); throws `ValidationError` before any request. `validation` is the lazily
   * loaded schemas and parse helpers (src/schemas/load.ts).
   */
  body: (options: RequestOptions, validation: Validation) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Picks the response's schema from the (lazily loaded) validation module. */
  schema: (validation: Validation) => S;
  /** The wait's deadline when the caller gives none. */
  defaultTimeout: number;
  /**
   * The kind of task, for learning how long such tasks take, when the answer has no
   * `normalized_model` (e.g. operation, model and size).
   */
  durationKey?: (body: Record<string, unknown>) => string | undefined;
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
  let fallbackKey: string | undefined;
  const sent = (async () => {
    const validation = await loadValidation();
    let json = await submission.body(options, validation);
    // The one place every submission passes: each callback_url gets the client's token here.
    if (client.callbackTokens && typeof json.callback_url === 'string') {
      json = { ...json, callback_url: await client.callbackTokens.addTo(json.callback_url) };
    }
    fallbackKey = submission.durationKey?.(json);
    submittedAt = Date.now();
    return client.http.request({
      method: 'POST',
      path: submission.path,
      auth: true,
      retry: 'submission',
      json,
      what: submission.what,
      signal: options.signal,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
      parse: (body, meta) => validation.parseResponse(submission.schema(validation), body, submission.what, meta) as z.output<S> & { task_id: string },
    });
  })();
  return taskPromise(sent, (task, waitOptions) => {
    const normalized = (task as { normalized_model?: unknown }).normalized_model;
    const durationKey = typeof normalized === 'string' && normalized ? normalized : fallbackKey;
    return waitForTask(
      pollTarget(client, task.task_id, { submittedAt, defaultTimeout: submission.defaultTimeout, durationKey }),
      waitOptions,
    );
  });
}
