/**
 * transport/: one HTTP exchange with the service or a result host: the exchange and its
 * deadlines (exchange.ts), the retry policy (retry-policy.ts), the mapping of error statuses
 * to error classes (error-mapping.ts). Imports errors.ts and internal/ only.
 */
import { apiErrorFromResponse, requestIdOf } from './error-mapping.ts';
import { APIConnectionError, APIError, APITimeoutError, AuthenticationError, OmniMediaError, ValidationError } from '../errors.ts';
import { Exchange, guardedBody, readText } from './exchange.ts';
import { keptInError } from '../errors/service-data.ts';
import { findInCauses } from '../internal/cause-chain.ts';
import { contentLength } from '../internal/content-length.ts';
import type { LevelledLogger } from '../internal/logger.ts';
import { urlForRecord, type Redactor } from '../internal/redact.ts';
import { jsonText, MAX_ERROR_BODY_BYTES, parseJsonAnswer } from './json-bodies.ts';
import { errorText } from '../internal/error-text.ts';
import type { Telemetry, TelemetryRequest, TelemetrySpan } from '../telemetry/ports.ts';
import { failedBeforeSending, withRetries, type RetryKind, type RetryOptions } from './retry-policy.ts';
import type { BuiltBody, RequestBody } from './request-body.ts';

/**
 * The `fetch` the client calls: the platform's by default, or the `fetch` option.
 *
 * @example
 * ```ts
 * const client = new OmniMedia({
 *   fetch: (input, init) => {
 *     console.log('->', init?.method ?? 'GET', String(input));
 *     return fetch(input, init);
 *   },
 * });
 * ```
 */
export type Fetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

export interface HttpConfig {
  baseURL: string;
  apiKey: string | undefined;
  timeout: number;
  maxRetries: number;
  fetch: Fetch | undefined;
  defaultHeaders: Record<string, string>;
  logger: LevelledLogger;
  /** Removes every secret the client holds from its errors (the logger has the same one). */
  redactor: Redactor;
  /** `baseURL` is the app's proxy, which adds the key: none is needed here, and the page's cookies go along. */
  proxied?: boolean;
  telemetry?: Telemetry | undefined;
}

/** Largest JSON answer of the API read (1 MiB): a task result is a few KB. */
export const MAX_JSON_BYTES = 1024 * 1024;

/** What a response said besides its body, for errors about a body that could not be used. */
export interface ResponseMeta {
  status: number;
  headers: Headers;
  requestId: string | undefined;
  /** The request's `taskId`: the task its errors name. */
  taskId?: string | undefined;
  /** Tells the client's logger about a field read tolerantly, once per field and kind. */
  warnOnce: (key: string, message: string) => void;
}

export interface HttpRequest<T = unknown> {
  method: 'GET' | 'POST';
  /** Relative to the base URL, e.g. `v1/tasks/abc`. */
  path: string;
  /** Sends `Authorization: Bearer`, and fails locally when the client has no key. */
  auth: boolean;
  retry: RetryKind;
  /** A JSON body. */
  json?: unknown;
  /**
   * Any other body (an upload's), built anew for every attempt (a retried upload re-opens its
   * source): `requestBody()` of request-body.ts. Such a request does not follow redirects.
   */
  body?: RequestBody;
  /**
   * Reads the answer's JSON (plain data) into the result, inside the attempt: its errors carry
   * the response's status, headers and request id (pass `meta` on to `parseResponse`).
   */
  parse?: (body: unknown, meta: ResponseMeta) => T;
  /** Words for messages, e.g. `images.generate`. */
  what: string;
  taskId?: string | undefined;
  timeout?: number | undefined;
  maxRetries?: number | undefined;
  signal?: AbortSignal | undefined;
  /** The call this request is made for, when telemetry is on: each attempt is a span under it. */
  span?: TelemetrySpan | undefined;
  /** Called with each failed attempt before its retry. */
  onRetry?: ((error: unknown, retry: number, delayMs: number) => void) | undefined;
}

/** What went wrong on the socket: the first error code in the cause chain (`ECONNREFUSED`), else its deepest message. */
function socketReason(error: unknown): string {
  let reason = errorText(error);
  const code = findInCauses(error, (link) => {
    if (typeof link.code === 'string') return link.code;
    if (typeof link.message === 'string' && link.message) reason = link.message;
    return undefined;
  });
  return code ?? reason;
}

/**
 * One attempt's `fetch`: the URL, method and headers, the exchange's own signal (see
 * `Exchange`), and the body as built. A streamed body needs `duplex: 'half'`.
 */
function send(
  fetchImpl: Fetch,
  url: string,
  init: { method: string; headers: Record<string, string>; signal: AbortSignal; body?: BodyInit | undefined; redirect?: RequestRedirect; credentials?: RequestCredentials },
  span: TelemetryRequest | undefined,
): Promise<Response> {
  const streaming = init.body !== undefined && typeof ReadableStream !== 'undefined' && init.body instanceof ReadableStream;
  const request = (streaming ? { ...init, duplex: 'half' } : init) as RequestInit;
  return span ? span.send(fetchImpl, url, request) : fetchImpl(url, request);
}

/**
 * The one HTTP layer: plain `fetch` under an `Exchange` (deadline, abort, body caps), our
 * policy for retries. (It was ky once; see docs/design-notes.md.)
 */
export class HttpClient {
  readonly #fetch: Fetch;
  readonly #config: HttpConfig;
  /** Headers of every API request, built once: the default headers, then the key. */
  readonly #headers: Record<string, string>;
  readonly #headersWithKey: Record<string, string>;
  /** The base URL once known: a relative `proxyURL` resolves against the page at the first request. */
  #base: string | undefined;

  constructor(config: HttpConfig) {
    this.#config = config;
    // Looked up at call time, so a fetch patched after the client was made (MSW) is used.
    this.#fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#headers = { ...config.defaultHeaders };
    this.#headersWithKey = config.apiKey ? { ...this.#headers, authorization: `Bearer ${config.apiKey}` } : this.#headers;
  }

  /**
   * GET an absolute URL outside the API (a result file) and resolve once its status is OK,
   * with the response and its body as a stream for the caller to read. Sends neither the API
   * key nor the default headers: result URLs may live on another host. `timeout` bounds the
   * wait for the response to start, `idleTimeout` every wait for the next chunk after it; the
   * signal ends it at any point. Retried like a task query until the response starts; a body
   * cut off later is the caller's to handle. `api`: `url` is a path of the API instead (a
   * proxy's task events), sent with the default headers, `headers` and the page's cookies.
   */
  async open(
    url: string,
    options: {
      what: string;
      signal?: AbortSignal | undefined;
      timeout?: number | undefined;
      /** ms without a byte once the response has started (its default is in options.ts). */
      idleTimeout: number;
      maxRetries?: number | undefined;
      span?: TelemetrySpan | undefined;
      api?: { headers: Record<string, string> } | undefined;
      taskId?: string | undefined;
    },
  ): Promise<{ response: Response; body: ReadableStream<Uint8Array> }> {
    const { idleTimeout, api, taskId } = options;
    const request: HttpRequest = { method: 'GET', path: url, auth: false, retry: 'idempotent', ...options };
    const timeout = options.timeout ?? this.#config.timeout;
    const init = api ? { headers: { ...this.#headers, ...api.headers }, credentials: 'same-origin' as const } : { headers: {} };
    return withRetries(
      async (attempt) => {
        const href = api ? `${this.#baseURL()}${url}` : url;
        const exchange = new Exchange(options.signal, timeout, () => new APITimeoutError(`${options.what}: no response within ${timeout} ms`, { taskId }));
        // A download's attempt span ends once its response has started: the call's span covers the body.
        const span = this.#config.telemetry?.request(options.span, 'GET', href, undefined, attempt);
        let failure: unknown;
        let network = true;
        try {
          const response = await exchange.race(send(this.#fetch, href, { method: 'GET', ...init, signal: exchange.signal }, span));
          network = false;
          if (!response.ok) throw await this.#errorOf(response, exchange, request);
          const idleError = () => new APITimeoutError(`${options.what}: no data for ${idleTimeout} ms`, { taskId });
          return { response, body: guardedBody(response.body, exchange, idleTimeout, idleError) };
        } catch (error) {
          exchange.close();
          throw (failure = this.#failure(error, request, exchange, network));
        } finally {
          span?.end(failure);
        }
      },
      this.#retryOptions(request, `GET ${urlForRecord(url)}`),
    );
  }

  /** The client's one redactor: what it writes and the errors it builds go through it. */
  get redactor(): Redactor {
    return this.#config.redactor;
  }

  get apiKey(): string | undefined {
    return this.#config.apiKey;
  }

  /** `true` when the base URL is the app's proxy (`proxyURL`). */
  get proxied(): boolean {
    return this.#config.proxied === true;
  }

  /**
   * The base URL requests go to. A relative `proxyURL` (kept relative by a client made where
   * there was no page: a page module the server rendered) resolves against the page at the
   * first request; with still no page it is a `ValidationError`, nothing sent.
   */
  #baseURL(): string {
    if (this.#base !== undefined) return this.#base;
    const { baseURL } = this.#config;
    if (URL.canParse(baseURL)) return (this.#base = baseURL);
    const page = (globalThis as { location?: { href?: string } }).location?.href;
    if (page === undefined || !URL.canParse(baseURL, page))
      throw new ValidationError([{ path: 'proxyURL', message: `is relative, and there is no page (server rendering?): nothing was sent` }]);
    return (this.#base = new URL(baseURL, page).href);
  }

  /**
   * Send the request under the retry policy; resolve with the answer's JSON as plain data,
   * or with what `parse` made of it.
   */
  async request<T = unknown>(request: HttpRequest<T>): Promise<T> {
    const { apiKey, maxRetries, logger } = this.#config;
    if (request.auth && !apiKey && !this.#config.proxied) {
      throw new AuthenticationError(
        `${request.what} needs an API key (apiKey or OMNIMEDIA_API_KEY; in a page, proxyURL). No request was sent.`,
        { taskId: request.taskId },
      );
    }
    const base = this.#baseURL();
    const json = request.json === undefined ? undefined : jsonText(request);
    return withRetries((attempt) => this.#attempt(request, attempt, base, json), this.#retryOptions(request, `${request.method} /${request.path}`));
  }

  #retryOptions(request: HttpRequest<unknown>, label: string): RetryOptions {
    return {
      kind: request.retry,
      maxRetries: request.maxRetries ?? this.#config.maxRetries,
      signal: request.signal,
      onRetry: (error, retry, delay) => {
        this.#config.logger.info(`${label} retry ${retry} in ${Math.round(delay)} ms after: ${errorText(error)}`);
        request.onRetry?.(error, retry, delay);
      },
    };
  }

  async #attempt<T>(request: HttpRequest<T>, attempt: number, base: string, json: string | undefined): Promise<T> {
    const { logger } = this.#config;
    const started = logger.enabled('debug') ? performance.now() : 0;
    const timeout = request.timeout ?? this.#config.timeout;
    const exchange = new Exchange(request.signal, timeout, () =>
      new APITimeoutError(`${request.what}: no complete answer within ${timeout} ms`, { taskId: request.taskId }),
    );
    const url = `${base}${request.path}`;
    const span = this.#config.telemetry?.request(request.span, request.method, url, request.path, attempt);
    let failure: unknown;
    let built: BuiltBody | undefined;
    // Set while fetch runs and the answer is read: only a TypeError thrown then is the network's.
    let network = false;
    try {
      if (json === undefined && request.body) built = await request.body.open(exchange);
      const headers = request.auth ? this.#headersWithKey : this.#headers;
      // fetch's default, stated for custom fetches: behind a proxy (proxyURL) the page's session
      // cookie is how the app knows who asks; the service itself never gets a cookie.
      const init: Parameters<typeof send>[2] = { method: request.method, headers, signal: exchange.signal, credentials: 'same-origin' };
      if (json !== undefined) {
        init.body = json;
        init.headers = { ...headers, 'content-type': 'application/json' };
      } else if (built) {
        init.body = built.body;
        if (built.headers) init.headers = { ...headers, ...built.headers };
        // See requestBody(): fetch would hold the whole file to replay it on a redirect.
        init.redirect = 'error';
      }
      network = true;
      const response = await exchange.race(send(this.#fetch, url, init, span));
      if (started) logger.debug(`${request.method} /${request.path} ${response.status} in ${Math.round(performance.now() - started)} ms (attempt ${attempt})`);
      if (!response.ok) throw await this.#errorOf(response, exchange, request);
      const meta: ResponseMeta = {
        status: response.status,
        headers: response.headers,
        requestId: requestIdOf(response.headers),
        taskId: request.taskId,
        warnOnce: logger.warnOnce,
      };
      const tooLarge = () => new APIError(`${request.what}: the service answered ${response.status} with a body larger than 1 MiB`, meta);
      if ((contentLength(response.headers.get('content-length')) ?? 0) > MAX_JSON_BYTES) {
        response.body?.cancel().catch(() => {});
        throw tooLarge();
      }
      const { text, overflow } = await readText(response, exchange, MAX_JSON_BYTES, this.#config.proxied);
      if (overflow) throw tooLarge();
      network = false;
      const answer = parseJsonAnswer(text, meta, request, this.#config.redactor);
      return request.parse ? request.parse(answer, meta) : (answer as T);
    } catch (error) {
      throw (failure = this.#failure(error, request, exchange, network, built?.sent?.()));
    } finally {
      span?.end(failure);
      exchange.close();
      // The service may answer (an error, say) before it has read the whole body. Awaited only
      // when there is one: an `await undefined` is a tick and two promises on every call.
      if (built?.release) await built.release();
    }
  }

  /** The `APIError` of an error status, with the first 64 KiB of its body. */
  async #errorOf(response: Response, exchange: Exchange, request: HttpRequest<unknown>): Promise<APIError> {
    const { text } = await readText(response, exchange, MAX_ERROR_BODY_BYTES, this.#config.proxied).catch((error: unknown) => {
      // A body that breaks off is no reason to hide the status: keep what there is (nothing).
      if (exchange.ended) throw error;
      return { text: '' };
    });
    return apiErrorFromResponse(response.status, response.statusText, response.headers, text, {
      redactor: this.#config.redactor,
      taskId: request.taskId,
      what: request.what,
    });
  }

  /**
   * The error a failed attempt rejects with. A cut-short exchange gives its reason: the
   * caller's own abort reason, untouched, or the `APITimeoutError` of the deadline. What fetch
   * threw becomes an `OmniMediaError` whose cause is fetch's own error: never an object that
   * holds the request (its Authorization header would show in `util.inspect(err)`). Only a
   * `TypeError` thrown while the network was at work (`network`: fetch, or reading the answer)
   * is a connection error; one thrown by our own code before or after is not the network's fault.
   */
  #failure(error: unknown, request: HttpRequest<unknown>, exchange: Exchange, network: boolean, sent?: number): unknown {
    if (exchange.ended) return exchange.reason;
    if (error instanceof OmniMediaError) return error;
    const { taskId, what } = request;
    const { redactor } = this.#config;
    // Fetch's own error, as the error keeps it: without what this client's redactor knows (the key).
    const cause = keptInError(error, redactor);
    const socket = socketReason(error);
    if (socket === 'redirect count exceeded') return new APIError(`${what}: the server redirected more than 20 times (a redirect loop)`, { cause, taskId });
    if (socket === 'unexpected redirect')
      return new APIError(
        `${what}: the service answered with a redirect, which an upload does not follow (replaying it would hold the whole file in memory)`,
        { cause, taskId },
      );
    if (error instanceof TypeError && network) {
      const reason = redactor.text(socket);
      const message = failedBeforeSending(error)
        ? `could not reach ${URL.canParse(request.path) ? new URL(request.path).origin : (this.#base ?? this.#config.baseURL)} (${reason})`
        : sent
          ? `the connection was reset after ${sent.toLocaleString('en-US')} bytes were sent (${reason})`
          : `the connection failed (${reason})`;
      return new APIConnectionError(`${what}: ${message}`, { cause, taskId });
    }
    return new APIError(`${what}: the request failed (${redactor.text(errorText(error))})`, {
      cause,
      taskId,
    });
  }
}
