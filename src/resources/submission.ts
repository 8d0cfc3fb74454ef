import type { JournalEntry } from '../coordination/ports.ts';
import { ValidationError, type APIError } from '../errors.ts';
import { checkRequestOptions } from '../option-checks.ts';
import { isUnusableAnswer } from '../transport/retry-policy.ts';
import type { RequestOptions } from '../options.ts';
import type { AnswerShape } from '../schemas/tolerant.ts';
import { parseResponse } from '../validation/answers.ts';
import { pollTarget, waitForTask } from '../waiting/poller.ts';
import { taskPromise, type TaskPromise } from '../waiting/task-promise.ts';
import type { ResourceContext } from './context.ts';
import { guardOf, PORT_TIMEOUT_MS } from '../internal/port-call.ts';
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
    // The one place every submission passes: each callback_url gets a token of its own here,
    // whose nonce the journal keeps beside the task id (what binds the token to the task).
    const tokens = context.callbackTokens;
    let callbackNonce: string | undefined;
    if (tokens && typeof json.callback_url === 'string') {
      const minted = await tokens.mint(json.callback_url);
      json = { ...json, callback_url: minted.url };
      callbackNonce = minted.nonce;
    }
    fallbackKey = submission.durationKey?.(json);
    submittedAt = Date.now();
    const journal = async (taskId: string) => {
      // Journaled before the submission settles. The task is billed: a journal that fails, hangs
      // past the call's timeout (2 s at most) or its abort costs no task id, and the entry is
      // written again when the journal answers.
      const entry: JournalEntry = { task_id: taskId, kind: submission.kind, submitted_at: submittedAt, ...(callbackNonce ? { callback_nonce: callbackNonce } : {}) };
      const port = guardOf(context.journal, 'the journal of submissions', context.waiting.logger);
      await port.call(() => context.journal.record(entry), {
        signal: options.signal,
        abort: 'fallback',
        timeoutMs: Math.min(options.timeout ?? PORT_TIMEOUT_MS, PORT_TIMEOUT_MS),
        keep: `journal:${taskId}`,
        fallback: () => {},
      });
    };
    let accepted: S;
    try {
      accepted = await context.http.request({
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
      });
    } catch (error) {
      // The service accepted (2xx) and named a task we cannot use as it is (an id our rule
      // refuses): the task exists and is billed, so the error carries its id and the journal has
      // it. (A try, not .catch(): a closure and a promise fewer on every submission.)
      const named = (error as APIError).taskId ?? ((error as APIError).body as { task_id?: unknown } | undefined)?.task_id;
      if (isUnusableAnswer(error) && typeof named === 'string' && named) {
        (error as APIError).taskId ??= named;
        await journal(named);
      }
      throw error;
    }
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
