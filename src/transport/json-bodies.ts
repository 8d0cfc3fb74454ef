/**
 * The API's JSON both ways as plain data (see `toPlainData`): a request's body as text, an
 * answer's text as data, each failing with the error that names whose fault it is.
 */
import { APIError, ValidationError } from '../errors.ts';
import { PlainDataError, toPlainData } from '../internal/plain-data.ts';
import { parsesAsPlainData } from '../internal/plain-json.ts';
import type { Redactor } from '../internal/redact.ts';
import type { HttpRequest, ResponseMeta } from './http-client.ts';

/** Bytes of an error body kept (64 KiB): enough for any error message, not for a hostile page. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * The request's JSON body as text, read from plain data (see `toPlainData`): a value JSON
 * cannot carry (a cycle, a BigInt, a function, a class instance) is the caller's
 * `ValidationError` naming it, before anything is sent; never a connection error.
 */
export function jsonText(request: HttpRequest<unknown>): string {
  try {
    return JSON.stringify(toPlainData(request.json));
  } catch (error) {
    if (!(error instanceof PlainDataError)) throw error;
    const invalid = new ValidationError([{ path: error.path, message: error.message }], `${request.what} params`);
    invalid.taskId = request.taskId;
    throw invalid;
  }
}

/** An answer's JSON as plain data (see `toPlainData`), or the `APIError` saying why it is not. */
export function parseJsonAnswer(text: string, meta: ResponseMeta, request: HttpRequest<unknown>, redactor: Redactor): unknown {
  if (!text) return undefined;
  let problem: string;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
    // JSON whose text shows it needs no change is used as parsed: a copy would be the same.
    return parsesAsPlainData(text) ? parsed : toPlainData(parsed);
  } catch (error) {
    problem = error instanceof PlainDataError ? `JSON that ${error.message}` : 'a body that is not JSON';
  }
  // JSON too deep or too long to use may still name its task at the top: a submission's answer
  // names a task the service accepted, and the error must carry it.
  const named = (parsed as { task_id?: unknown } | null | undefined)?.task_id;
  const taskId = request.taskId ?? (request.retry === 'submission' && typeof named === 'string' && named ? named : undefined);
  throw new APIError(`${request.what}: the service answered ${meta.status} with ${problem}`, {
    ...meta,
    body: redactor.data(text.length > MAX_ERROR_BODY_BYTES ? text.slice(0, MAX_ERROR_BODY_BYTES) : text),
    taskId,
  });
}
