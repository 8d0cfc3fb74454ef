/**
 * One request to the service, built from the configured base URL and the matched endpoint alone,
 * sent once, and its answer made safe for the page: the status and `Retry-After` pass, the body
 * (JSON, at most 1 MiB) passes with the key removed from every string in it, and no other
 * header does (no `Set-Cookie`, no hop-by-hop header, nothing the service echoed).
 */
import type { LevelledLogger } from '../internal/logger.ts';
import type { Redactor } from '../internal/redact.ts';
import { contentLength } from '../internal/content-length.ts';
import { PlainDataError, toPlainData } from '../internal/plain-data.ts';
import { Exchange, readText } from '../transport/exchange.ts';
import { MAX_JSON_BYTES, type Fetch } from '../transport/http-client.ts';
import { failedBeforeSending } from '../transport/retry-policy.ts';
import { ProxyRefusal } from './answers.ts';
import type { Route } from './routes.ts';
import { errorText } from '../internal/error-text.ts';

/** Headers of the service's answer the page gets (their values with the key removed). */
const PASSED_HEADERS = ['retry-after', 'retry-after-ms', 'x-request-id', 'request-id'] as const;

/** What every upstream request runs with. */
export interface UpstreamSettings {
  /** Ends in `/`. */
  baseURL: string;
  apiKey: string;
  /** Removes the key, in every form an echo may write it, and callback tokens from what the page gets. */
  redactor: Redactor;
  fetch: Fetch;
  timeout: number;
  logger: LevelledLogger;
}

/** The service's answer, made safe: its status, the headers that pass, and its JSON body. */
export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body, parsed. */
  body: unknown;
  /** The body as the page gets it: JSON text without the key. */
  text: string;
}

export interface UpstreamRequest {
  route: Route;
  /** The content type of the body. */
  contentType?: string;
  /**
   * The body: JSON text, or a stream built with the exchange, whose deadline the stream
   * restarts as it goes (an upload's `timeout` counts from its last byte sent).
   */
  body?: string | ((exchange: Exchange) => ReadableStream<Uint8Array>);
  /** Ends the request: the page went away, or its body stalled. */
  signal: AbortSignal;
}

/**
 * Send the request once; resolve with the safe answer, or reject with the `ProxyRefusal` to
 * give the page instead: 504 at the deadline, 503 when the connection failed before anything
 * was sent (so the page's client may retry, surely not billed), 502 for the rest.
 */
export async function forward(settings: UpstreamSettings, request: UpstreamRequest): Promise<UpstreamAnswer> {
  const { route } = request;
  const streamed = typeof request.body === 'function';
  const timedOut = () => new ProxyRefusal(504, 'upstream_timeout', `the service did not answer within ${settings.timeout} ms`);
  const exchange = new Exchange(request.signal, streamed ? undefined : settings.timeout, timedOut);
  // The service's task query is public: it never gets the key.
  const headers: Record<string, string> = { accept: 'application/json' };
  if (route.method === 'POST') headers.authorization = `Bearer ${settings.apiKey}`;
  if (request.contentType) headers['content-type'] = request.contentType;
  const body = typeof request.body === 'function' ? request.body(exchange) : request.body;
  // Never followed: a redirect is answered 502, whichever mode saw it.
  const redirect = streamed ? uploadRedirect() : 'manual';
  const init = { method: route.method, headers, body, signal: exchange.signal, redirect, ...(streamed ? { duplex: 'half' } : {}) };
  try {
    const response = await exchange.race(settings.fetch(`${settings.baseURL}${route.path}`, init as RequestInit));
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      void response.body?.cancel().catch(() => {});
      throw redirected();
    }
    const tooLarge = () => new ProxyRefusal(502, 'upstream_too_large', `the service answered ${response.status} with a body larger than 1 MiB`);
    if ((contentLength(response.headers.get('content-length')) ?? 0) > MAX_JSON_BYTES) {
      void response.body?.cancel().catch(() => {});
      throw tooLarge();
    }
    const { text: read, overflow } = await readText(response, exchange, MAX_JSON_BYTES);
    if (overflow) throw tooLarge();
    const { json, text } = safeBody(response.status, read, settings.redactor);
    return { status: response.status, headers: passedHeaders(response.headers, settings.redactor), body: json, text };
  } catch (error) {
    throw failure(error, exchange, settings, route);
  } finally {
    exchange.close();
  }
}

let takesRedirectError: boolean | undefined;

/**
 * How an upload refuses redirects: `'error'` where the runtime's fetch takes it, else
 * `'manual'` (workerd takes only 'follow' and 'manual'). Not 'manual' everywhere: with any mode
 * but 'error' Node's fetch clones the request to replay it, and the clone tees the body, which
 * keeps every byte sent until the answer (measured: +80 MiB of peak RSS for a 50 MiB upload
 * through the proxy, +32 MiB with 'error').
 */
function uploadRedirect(): RequestRedirect {
  if (takesRedirectError === undefined) {
    try {
      new Request('http://redirect.probe.invalid/', { redirect: 'error' });
      takesRedirectError = true;
    } catch {
      takesRedirectError = false;
    }
  }
  return takesRedirectError ? 'error' : 'manual';
}

const redirected = () => new ProxyRefusal(502, 'upstream_redirect', 'the service answered with a redirect, which the proxy does not follow');

function passedHeaders(headers: Headers, redactor: Redactor): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) out[name] = redactor.data(value) as string;
  }
  return out;
}

/**
 * The body as the page gets it: the service's JSON, re-serialised from plain data with the key
 * removed from every string (parsing first catches a key written with JSON escapes, `\/` or
 * `\u0041`). An error body that is not JSON is replaced by our own words: text can hide the key
 * in too many ways to be passed on. A success that is not JSON is a bad gateway.
 */
function safeBody(status: number, text: string, redactor: Redactor): { json: unknown; text: string } {
  try {
    const json: unknown = JSON.parse(text);
    // No escape and no form of the key in the text: no string in it can hold the key, so it goes
    // as it came (a task answer usually: one parse instead of two copies and a re-serialisation).
    if (!text.includes('\\') && !redactor.finds(text)) return { json, text };
    const safe = redactor.data(toPlainData(json));
    return { json: safe, text: JSON.stringify(safe) };
  } catch (error) {
    const what = error instanceof PlainDataError ? `JSON that ${error.message}` : 'a body that is not JSON';
    if (status >= 200 && status < 300) throw new ProxyRefusal(502, 'upstream_invalid', `the service answered ${status} with ${what}`);
    const json = { error: { code: 'upstream_error', message: `the service answered ${status} with ${what} (not passed on)` } };
    return { json, text: JSON.stringify(json) };
  }
}

function failure(error: unknown, exchange: Exchange, settings: UpstreamSettings, route: Route): unknown {
  if (exchange.ended) return exchange.reason;
  if (error instanceof ProxyRefusal) return error;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  // A body that failed with our refusal (an upload past its limit): that is the answer.
  if (cause instanceof ProxyRefusal) return cause;
  if (cause?.message === 'unexpected redirect') return redirected();
  const reason = settings.redactor.text(String(cause?.code ?? errorText(error)));
  settings.logger.warn(`proxy: ${route.method} /${route.path} failed: ${reason}`);
  return failedBeforeSending(error)
    ? new ProxyRefusal(503, 'upstream_unreachable', `the service could not be reached (${reason}); nothing was sent`, { headers: { 'retry-after': '1' } })
    : new ProxyRefusal(502, 'upstream_failed', `the request to the service failed (${reason})`);
}
