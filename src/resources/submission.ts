import { ValidationError, type APIError } from '../errors.ts';
import { checkRequestOptions } from '../option-checks.ts';
import { isUnusableAnswer } from '../transport/retry-policy.ts';
import type { RequestOptions } from '../options.ts';
import type { AnswerShape } from '../schemas/tolerant.ts';
import { parseResponse } from '../validation/answers.ts';
import { pollTarget, waitForTask } from '../waiting/poller.ts';
import { taskPromise, type TaskPromise } from '../waiting/task-promise.ts';
import type { ResourceContext } from './context.ts';
import { errorText } from '../internal/error-text.ts';
import { readCallerInput } from '../validation/caller-input.ts';

export interface Submission {
  path: string;
  what: string;
  /** What is submitted, for the journal: `image_generation`, `image_edit`, `video_generation`, `video_edit`. */
  kind: string;
  /**
   * Validates the params (read once into plain data: `readCallerInput`) and builds the JSON
   * body (uploading any file objects first, under the call's signal); throws `ValidationError`
   * before any request.
   */
  body: (params: Record<string, unknown>, options: RequestOptions) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** The model the request names (a default the SDK fills in included), for the call's span from its start. */
  model: (params: Record<string, unknown>) => unknown;
  /** What the answer holds (schemas/answers.ts). */
  answer: AnswerShape;
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
export function submitTask<S extends { task_id: string }>(
  context: Pick<ResourceContext, 'http' | 'callbackTokens' | 'waiting' | 'journal' | 'telemetry'>,
  submission: Submission,
  params: unknown,
  options: RequestOptions | undefined,
): TaskPromise<S> {
  let submittedAt = 0;
  let fallbackKey: string | undefined;
  // The door: params and options read once, before anything else looks at them; what is wrong
  // with them rejects the call's promise.
  let input: { params: Record<string, unknown>; options: RequestOptions } | { refused: unknown };
  try {
    const read: unknown = readCallerInput(params ?? {}, `${submission.what} params`);
    if (typeof read !== 'object' || read === null || Array.isArray(read))
      throw new ValidationError([{ path: '', message: 'must be an object of request fields' }], `${submission.what} params`);
    input = { params: read as Record<string, unknown>, options: checkRequestOptions(options, submission.what) };
  } catch (refused) {
    input = { refused };
  }
  const model = 'params' in input ? submission.model(input.params) : undefined;
  const span = context.telemetry?.call(submission.what, undefined, typeof model === 'string' ? { model } : {});
  const work = async () => {
    if ('refused' in input) throw input.refused;
    const { options } = input;
    let json = await submission.body(input.params, options);
    // The one place every submission passes: each callback_url gets the client's token here.
    const tokens = context.callbackTokens;
    if (tokens && typeof json.callback_url === 'string') json = { ...json, callback_url: await tokens.addTo(json.callback_url) };
    fallbackKey = submission.durationKey?.(json);
    submittedAt = Date.now();
    const journal = async (taskId: string) => {
      // Journaled before the submission settles; a journal that fails costs no task: the caller
      // still gets its task id.
      try {
        await context.journal.record({ task_id: taskId, kind: submission.kind, submitted_at: submittedAt });
      } catch (error) {
        context.waiting.logger?.warn(`${submission.what}: task ${taskId} could not be journaled: ${errorText(error)}`);
      }
    };
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
      parse: (body, meta) => parseResponse<S>(submission.answer, body, submission.what, meta),
    }).catch(async (error: unknown) => {
      // The service accepted (2xx) and named a task we cannot use as it is (an id our rule
      // refuses): the task exists and is billed, so the error carries its id and the journal has it.
      const named = (error as APIError).taskId ?? ((error as APIError).body as { task_id?: unknown } | undefined)?.task_id;
      if (isUnusableAnswer(error) && typeof named === 'string' && named) {
        (error as APIError).taskId ??= named;
        await journal(named);
      }
      throw error;
    });
    await journal(accepted.task_id);
    return accepted;
  };
  const sent = span ? span.run(work) : work();
  return taskPromise(sent, (task, waitOptions) => {
    const normalized = (task as { normalized_model?: unknown }).normalized_model;
    const durationKey = typeof normalized === 'string' && normalized ? normalized : fallbackKey;
    return waitForTask(pollTarget(context.waiting, task.task_id, {
        submittedAt,
        defaultTimeout: submission.defaultTimeout,
        durationKey,
        what: `${submission.what}(…).wait`,
      }), waitOptions);
  });
}
