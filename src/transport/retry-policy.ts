import { APIConnectionError, APIError, APITimeoutError, RateLimitError, ServiceUnavailableError } from '../errors.ts';
import { findInCauses } from '../internal/cause-chain.ts';
import { sleep } from '../internal/sleep.ts';

/**
 * What a request may be retried on.
 * - `submission`: task submissions. Retried only when the service surely did not take the
 *   request (429, 503, a connection that failed before anything was sent), so a retry can
 *   never create, and bill, a second task.
 * - `idempotent`: the task query, downloads and uploads (which are not billed, spec 4.2: a
 *   duplicate upload costs nothing): retried on any transient failure.
 */
export type RetryKind = 'submission' | 'idempotent';

/** Longest `Retry-After` we sleep through; beyond it the error goes to the caller. */
export const MAX_RETRY_AFTER_MS = 60_000;
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;

// Connection failures where no byte of the request reached the service.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const TRANSIENT_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/** `true` when the error's cause chain shows the connection failed before the request was sent. */
export function failedBeforeSending(error: unknown): boolean {
  return findInCauses(error, (link) => (typeof link.code === 'string' && NOT_SENT_CODES.has(link.code) ? true : undefined)) ?? false;
}

/**
 * Milliseconds the service asked us to wait, from `retry-after-ms`, or `Retry-After` as
 * seconds or an HTTP date. `undefined` when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** `true` when the error is one the given kind of request may be retried on. */
export function isRetryable(error: unknown, kind: RetryKind): boolean {
  if (error instanceof RateLimitError || error instanceof ServiceUnavailableError) return true;
  if (error instanceof APIConnectionError) {
    if (kind === 'idempotent') return true;
    return !(error instanceof APITimeoutError) && failedBeforeSending(error);
  }
  return kind === 'idempotent' && error instanceof APIError && error.status !== undefined && TRANSIENT_STATUS.has(error.status);
}

/**
 * `true` for a success status whose answer could not be used: not JSON, over the size cap,
 * not a task, or another task's. A proxy's page or a confused cache, most likely: one
 * `tasks.retrieve` reports it, but a wait treats it as transient (see `isTransientInWait`).
 */
export function isUnusableAnswer(error: unknown): boolean {
  return error instanceof APIError && error.status !== undefined && error.status >= 200 && error.status < 300;
}

/**
 * `true` when a failed task query should not end a wait: whatever a retried query would
 * retry, and an unusable answer too (a non-JSON 200 from a proxy is as transient as its 502
 * page). The wait's deadline bounds the retries.
 */
export function isTransientInWait(error: unknown): boolean {
  return isRetryable(error, 'idempotent') || isUnusableAnswer(error);
}

/**
 * How long to wait before retry number `retry` (1-based) after a transient `error`: the
 * service's `Retry-After` (plus up to 10% jitter, never sooner), else exponential backoff from
 * 0.5 s capped at 8 s, with jitter so that many clients spread out. Never 0: a `Retry-After: 0`
 * gets the backoff (as openai-node does), since a wait's loop retried at once spins in
 * microtasks (a page's tab froze).
 */
export function transientDelay(error: unknown, retry: number, random = Math.random): number {
  const asked = error instanceof APIError ? parseRetryAfter(error.headers) : undefined;
  if (asked !== undefined && asked > 0) return asked * (1 + 0.1 * random());
  const backoff = Math.min(BASE_DELAY_MS * 2 ** (retry - 1), MAX_BACKOFF_MS);
  return backoff * (0.75 + 0.25 * random());
}

/**
 * How long to wait before retry number `retry` (1-based) after `error`, or `undefined` for no
 * retry: the error is not one this kind of request is retried on, or the service asked for
 * more than `MAX_RETRY_AFTER_MS` (the caller gets the error, with its `retryAfter`).
 */
export function retryDelay(error: unknown, kind: RetryKind, retry: number, random = Math.random): number | undefined {
  if (!isRetryable(error, kind)) return undefined;
  const asked = error instanceof APIError ? parseRetryAfter(error.headers) : undefined;
  return asked !== undefined && asked > MAX_RETRY_AFTER_MS ? undefined : transientDelay(error, retry, random);
}

export interface RetryOptions {
  kind: RetryKind;
  maxRetries: number;
  signal?: AbortSignal | undefined;
  onRetry?: (error: unknown, retry: number, delayMs: number) => void;
}

/**
 * Run `attempt` under the one retry policy: again after each failure the policy retries, up to
 * `maxRetries` times, after its delay (Retry-After or backoff); the caller's abort ends it at
 * once, with the signal's reason, between attempts and during a sleep. The attempt rebuilds
 * its request body each time. (A loop of our own: p-retry's delay, factor and error rules were
 * all overridden, and it cost 1.5 KiB gzip in every bundle; see docs/design-notes.md.)
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    options.signal?.throwIfAborted();
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      // A caller's abort is final: it wins over whatever the attempt failed with.
      options.signal?.throwIfAborted();
      const delay = attemptNumber <= options.maxRetries ? retryDelay(error, options.kind, attemptNumber) : undefined;
      if (delay === undefined) throw error;
      options.onRetry?.(error, attemptNumber, delay);
      await sleep(delay, options.signal);
    }
  }
}
