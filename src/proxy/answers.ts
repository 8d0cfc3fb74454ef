/**
 * The proxy's answers: its own refusals, in the error body the page's client maps to its typed
 * errors (`{ error: { code, message, issues? } }`, as the service's mock writes them), and the
 * headers every answer carries.
 */
import type { ValidationIssue } from '../errors.ts';

/** Headers on every answer: never cached (a task, a session's refusal), never sniffed, one per origin. */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  vary: 'Origin',
};

/**
 * A refusal of the proxy's own: nothing was forwarded (or, for 408/413/504, what was is aborted).
 * An `Error`, so that whatever a runtime makes of one (workerd's fetch rejects with the error a
 * request body failed with, in words) says what was refused.
 */
export class ProxyRefusal extends Error {
  override name = 'ProxyRefusal';
  readonly status: number;
  readonly code: string;
  readonly issues: readonly ValidationIssue[] | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, extra: { issues?: readonly ValidationIssue[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.issues = extra.issues;
    this.headers = extra.headers ?? {};
  }
}

/**
 * A JSON answer (the text given, or `body` serialised) with `extra` (CORS, the service's
 * Retry-After) and the proxy's own headers last: nothing passed on replaces them.
 */
export function jsonAnswer(status: number, body: unknown, extra: Record<string, string> = {}, text = JSON.stringify(body)): Response {
  return new Response(text, { status, headers: { ...extra, 'content-type': 'application/json', ...ANSWER_HEADERS } });
}

/** The answer of a refusal. */
export function refusalAnswer(refusal: ProxyRefusal, extra: Record<string, string> = {}): Response {
  const error: Record<string, unknown> = { code: refusal.code, message: refusal.message };
  if (refusal.issues) error.issues = refusal.issues;
  return jsonAnswer(refusal.status, { error }, { ...refusal.headers, ...extra });
}
