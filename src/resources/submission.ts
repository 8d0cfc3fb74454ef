import type * as z from 'zod/mini';
import { checkRequestOptions } from '../option-checks.ts';
import type { RequestOptions } from '../options.ts';
import { loadValidation, type Validation } from '../validation/load.ts';
import { pollTarget, waitForTask } from '../waiting/poller.ts';
import { taskPromise, type TaskPromise } from '../waiting/task-promise.ts';
import type { ResourceContext } from './context.ts';

export interface Submission<S extends z.core.$ZodType> {
  path: string;
  what: string;
  /** What is submitted, for the journal: `image_generation`, `image_edit`, `video_generation`, `video_edit`. */
  kind: string;
  /**
   * Validates the params and builds the JSON body (uploading any file objects first, under the
   * call's signal); throws `ValidationError` before any request. `validation` is the lazily
   * loaded schemas and parse helpers (src/validation/load.ts).
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
 * POST a task submission (never retried once the service may have taken it), journal it, and
 * return it as a `TaskPromise`, whose `.wait()` times its first query from the moment of
 * submission.
 */
export function submitTask<S extends z.core.$ZodType>(
  context: Pick<ResourceContext, 'http' | 'callbackTokens' | 'waiting' | 'journal' | 'telemetry'>,
  submission: Submission<S>,
  options: RequestOptions = {},
): TaskPromise<z.output<S> & { task_id: string }> {
  let submittedAt = 0;
  let fallbackKey: string | undefined;
  const span = context.telemetry?.call(submission.what);
  const work = async () => {
    checkRequestOptions(options, submission.what);
    const validation = await loadValidation();
    let json = await submission.body(options, validation);
    // The one place every submission passes: each callback_url gets the client's token here.
    const tokens = context.callbackTokens;
    if (tokens && typeof json.callback_url === 'string') json = { ...json, callback_url: await tokens.addTo(json.callback_url) };
    fallbackKey = submission.durationKey?.(json);
    submittedAt = Date.now();
    const accepted = await context.http.request({
      method: 'POST',
      path: submission.path,
      auth: true,
      retry: 'submission',
      json,
      what: submission.what,
      signal: options.signal,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
      span,
      parse: (body, meta) => validation.parseResponse(submission.schema(validation), body, submission.what, meta) as z.output<S> & { task_id: string },
    });
    // Journaled before the submission resolves; a journal that fails costs no task: the
    // caller still gets its task id.
    try {
      await context.journal.record({ task_id: accepted.task_id, kind: submission.kind, submitted_at: submittedAt });
    } catch (error) {
      context.waiting.logger?.warn(`${submission.what}: task ${accepted.task_id} could not be journaled: ${String((error as Error)?.message ?? error)}`);
    }
    return accepted;
  };
  const sent = span ? span.run(work) : work();
  return taskPromise(sent, (task, waitOptions) => {
    const normalized = (task as { normalized_model?: unknown }).normalized_model;
    const durationKey = typeof normalized === 'string' && normalized ? normalized : fallbackKey;
    return waitForTask(pollTarget(context.waiting, task.task_id, { submittedAt, defaultTimeout: submission.defaultTimeout, durationKey }), waitOptions);
  });
}
