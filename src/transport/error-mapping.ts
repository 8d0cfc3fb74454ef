import {
  APIError,
  AuthenticationError,
  BadRequestError,
  InsufficientBalanceError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  type APIErrorInit,
} from '../errors.ts';
import type { Redactor } from '../internal/redact.ts';
import { toPlainData } from '../internal/plain-data.ts';
import { parseRetryAfter } from './retry-policy.ts';

/** The request id a response carries, if any. */
export function requestIdOf(headers: Headers): string | undefined {
  return headers.get('x-request-id') ?? headers.get('request-id') ?? undefined;
}

const CLASS_BY_STATUS: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: InsufficientBalanceError,
  403: PermissionDeniedError,
  404: NotFoundError,
  // Over a size limit (the proxy's uploads and JSON bodies): a bad request, with its issues.
  413: BadRequestError,
  503: ServiceUnavailableError,
};

/**
 * The error body as sent: parsed JSON (as plain data) when it parses, else the text;
 * `undefined` when empty. Secrets are removed after parsing, from every string (a key written
 * with JSON escapes, `\/` or `\u0041`, is caught).
 */
export function readErrorBody(text: string, redactor: Redactor): unknown {
  if (!text) return undefined;
  let body: unknown;
  try {
    body = toPlainData(JSON.parse(text));
  } catch {
    body = text;
  }
  return redactor.data(body);
}

// The spec does not give the error body's shape: look for the usual places a message sits.
function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.slice(0, 500);
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string')
    return (error as { message: string }).message;
  if (typeof record.message === 'string') return record.message;
  if (typeof record.detail === 'string') return record.detail;
  return JSON.stringify(body).slice(0, 500);
}

/**
 * The one mapper from an HTTP error status to an error class. Its message, body and headers
 * hold no secret (see the redactor), even when the service echoes the request back.
 */
export function apiErrorFromResponse(
  status: number,
  statusText: string,
  headers: Headers,
  bodyText: string,
  context: { redactor: Redactor; taskId?: string | undefined; what: string },
): APIError {
  const { redactor } = context;
  const body = readErrorBody(bodyText, redactor);
  headers = redactor.headers(headers);
  const detail = messageOf(body);
  const message = `${context.what} failed: ${status}${statusText ? ` ${statusText}` : ''}${detail ? `: ${detail}` : ''}`;
  const init: APIErrorInit = {
    status,
    body,
    headers,
    requestId: requestIdOf(headers),
    taskId: context.taskId,
  };
  if (status === 429) {
    const ms = parseRetryAfter(headers);
    return new RateLimitError(redactor.text(message), { ...init, retryAfter: ms === undefined ? undefined : ms / 1000 });
  }
  const ErrorClass = CLASS_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : APIError);
  return new ErrorClass(redactor.text(message), init);
}
