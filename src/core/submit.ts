import type * as z from 'zod/mini';
import type { OmniMedia } from '../client.ts';
import { parseResponse } from './parse.ts';
import { taskPromise, type TaskPromise } from './task-promise.ts';

/** Per-call options of every request method. */
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
  body: () => Promise<Record<string, unknown>> | Record<string, unknown>;
  schema: S;
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
    let json = await submission.body();
    // The one place every submission passes: each callback_url gets the client's token here.
    if (client.callbackTokens && typeof json.callback_url === 'string') {
      json = { ...json, callback_url: await client.callbackTokens.addTo(json.callback_url) };
    }
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
    return parseResponse(submission.schema, body, submission.what) as z.output<S> & { task_id: string };
  })();
  return taskPromise(sent, (task, waitOptions) =>
    client.tasks.wait(task.task_id, { ...waitOptions, submittedAt, defaultTimeout: submission.defaultTimeout }),
  );
}
