import type { KyInstance, Options } from 'ky';
import { apiErrorFromResponse } from './api-error.ts';
import { APIConnectionError, APIError, APITimeoutError, AuthenticationError } from './errors.ts';
import { redact, type LevelledLogger } from './logger.ts';
import { withRetries, type RetryKind } from './retry.ts';

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
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Relative to the base URL, e.g. `v1/tasks/abc`. */
  path: string;
  /** Sends `Authorization: Bearer`, and fails locally when the client has no key. */
  auth: boolean;
  retry: RetryKind;
  /** A JSON body. */
  json?: unknown;
  /**
   * Any other body, with its headers, built anew for every attempt (a retried upload re-opens
   * its source), and `release` to let go of its source after the attempt. Such a request does
   * not follow redirects: see `#attempt`.
   */
  body?: () => Promise<{ body: BodyInit; headers?: Record<string, string>; release?: () => Promise<void> }>;
  /** Words for messages, e.g. `images.generate`. */
  what: string;
  taskId?: string | undefined;
  timeout?: number | undefined;
  maxRetries?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called with each failed attempt before its retry. */
  onRetry?: ((error: unknown, retry: number, delayMs: number) => void) | undefined;
}

/**
 * What went wrong on the socket, e.g. `ECONNREFUSED`. ky wraps fetch's `TypeError('fetch
 * failed')`, which wraps the socket error: the code sits at the bottom of the cause chain.
 */
function socketReason(error: unknown): string {
  let reason = String((error as Error | undefined)?.message ?? error);
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    if (typeof message === 'string' && message) reason = message;
    e = cause;
  }
  return reason;
}

const JSON_CONTENT_TYPE = { 'content-type': 'application/json' } as const;

/**
 * The `fetch` ky calls: it passes on the parts of ky's Request (URL, method, headers, signal)
 * and the body as built, not the Request itself. Given a Request, fetch copies it (headers,
 * signal, and any body through a stream proxy), which made a submission cost twice the CPU
 * of a plain fetch (bench/suites/overhead.ts). ky's Request is built without the body.
 */
function fetchParts(fetchImpl: Fetch, body: BodyInit | undefined): NonNullable<Options['fetch']> {
  const streaming = body !== undefined && typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
  return (input, init) => {
    const request = input as Request;
    return fetchImpl(request.url, {
      ...init,
      method: request.method,
      headers: request.headers,
      signal: request.signal,
      redirect: request.redirect,
      ...(body !== undefined ? { body } : {}),
      ...(streaming ? { duplex: 'half' } : {}),
    } as RequestInit);
  };
}

type KyModule = typeof import('ky');
let kyModule: Promise<KyModule> | undefined;
let loadedKy: KyModule | undefined;

// ky is loaded at the first request, not at import: a cold `import('omnimedia')` stays cheap
// (ky alone costs ~40 ms of module loading on Node), and a client that never sends pays nothing.
export function loadKy(): Promise<KyModule> {
  return (kyModule ??= import('ky').then((module) => (loadedKy = module)));
}

interface KyInstances {
  api: KyInstance;
  apiWithKey: KyInstance;
  /** For URLs outside the service (result files): no prefix, no default headers, no key. */
  plain: KyInstance;
}

/** The one HTTP layer: ky for the exchange (its own retry off), our policy for retries. */
export class HttpClient {
  // ky instances built once (at the first request, when ky loads), so a request passes ky only
  // what changes per call: ky merges an instance's defaults into every call's options, and
  // each key costs on the hot path.
  #kys: KyInstances | undefined;
  readonly #fetch: Fetch;
  readonly #config: HttpConfig;

  constructor(config: HttpConfig) {
    this.#config = config;
    // Looked up at call time, so a fetch patched after the client was made (MSW) is used.
    this.#fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  async #loadKys(): Promise<KyInstances> {
    const { default: ky } = await loadKy();
    if (this.#kys) return this.#kys;
    const config = this.#config;
    const hasDefaultHeaders = Object.keys(config.defaultHeaders).length > 0;
    const api = ky.create({
      prefix: config.baseURL,
      // ky's retry would tee every upload body into memory; ours rebuilds the body instead.
      retry: 0,
      throwHttpErrors: false,
      timeout: config.timeout,
      fetch: fetchParts(this.#fetch, undefined),
      ...(hasDefaultHeaders ? { headers: config.defaultHeaders } : {}),
    });
    const apiWithKey = config.apiKey ? api.extend({ headers: { authorization: `Bearer ${config.apiKey}` } }) : api;
    const plain = ky.create({ retry: 0, throwHttpErrors: false, timeout: config.timeout, fetch: fetchParts(this.#fetch, undefined) });
    return (this.#kys = { api, apiWithKey, plain });
  }

  /**
   * GET an absolute URL outside the API (a result file) and resolve with the response once
   * its status is OK, its body unread, for the caller to stream. Sends neither the API key nor
   * the default headers: result URLs may live on another host. Retried like a task query
   * until the response starts; a body cut off later is the caller's to handle.
   */
  async open(
    url: string,
    options: { what: string; signal?: AbortSignal | undefined; timeout?: number | undefined; maxRetries?: number | undefined },
  ): Promise<Response> {
    const request: HttpRequest = { method: 'GET', path: url, auth: false, retry: 'query', ...options };
    return withRetries(
      async () => {
        let response: Response;
        try {
          const init: Options = { method: 'GET' };
          if (options.timeout !== undefined) init.timeout = options.timeout;
          if (options.signal) init.signal = options.signal;
          const kys = this.#kys ?? (await this.#loadKys());
          response = await kys.plain(url, init);
        } catch (error) {
          throw this.#failure(error, request);
        }
        if (response.ok) return response;
        const text = await response.text().catch(() => '');
        throw apiErrorFromResponse(response.status, response.statusText, response.headers, text, {
          apiKey: this.#config.apiKey,
          what: options.what,
        });
      },
      {
        kind: 'query',
        maxRetries: options.maxRetries ?? this.#config.maxRetries,
        signal: options.signal,
        onRetry: (error, retry, delay) =>
          this.#config.logger.info(`GET ${url} retry ${retry} in ${Math.round(delay)} ms after: ${String((error as Error).message)}`),
      },
    );
  }

  get apiKey(): string | undefined {
    return this.#config.apiKey;
  }

  /** Send the request under the retry policy; resolve with the parsed JSON body. */
  async request(request: HttpRequest): Promise<unknown> {
    const { apiKey, maxRetries, logger } = this.#config;
    if (request.auth && !apiKey) {
      throw new AuthenticationError(
        `${request.what} needs an API key: pass apiKey to new OmniMedia({...}) or set OMNIMEDIA_API_KEY. No request was sent.`,
        { taskId: request.taskId },
      );
    }
    return withRetries((attempt) => this.#attempt(request, attempt), {
      kind: request.retry,
      maxRetries: request.maxRetries ?? maxRetries,
      signal: request.signal,
      onRetry: (error, retry, delay) => {
        logger.info(`${request.method} /${request.path} retry ${retry} in ${Math.round(delay)} ms after: ${String((error as Error).message)}`);
        request.onRetry?.(error, retry, delay);
      },
    });
  }

  async #attempt(request: HttpRequest, attempt: number): Promise<unknown> {
    const { apiKey, logger } = this.#config;
    const started = logger.enabled('debug') ? performance.now() : 0;
    let response: Response;
    let built: Awaited<ReturnType<NonNullable<HttpRequest['body']>>> | undefined;
    try {
      const options: Options = { method: request.method };
      built = request.json === undefined && request.body ? await request.body() : undefined;
      const body = request.json !== undefined ? JSON.stringify(request.json) : built?.body;
      if (body !== undefined) {
        if (request.json !== undefined) options.headers = JSON_CONTENT_TYPE;
        else if (built?.headers) options.headers = built.headers;
        options.fetch = fetchParts(this.#fetch, body);
      }
      // redirect: 'error' keeps fetch from tee-ing an upload body to replay it on a 307/308:
      // the tee holds every byte sent until the response, the whole file (measured: +file
      // size of RSS on Node's fetch). An upload endpoint has no reason to redirect.
      if (built) options.redirect = 'error';
      if (request.timeout !== undefined) options.timeout = request.timeout;
      if (request.signal) options.signal = request.signal;
      const kys = this.#kys ?? (await this.#loadKys());
      response = await (request.auth ? kys.apiWithKey : kys.api)(request.path, options);
    } catch (error) {
      await built?.release?.();
      throw this.#failure(error, request);
    }
    const text = await response.text().catch((error: unknown) => {
      throw this.#failure(error, request);
    });
    // The service may answer (an error, say) before it has read the whole body.
    await built?.release?.();
    if (started) logger.debug(`${request.method} /${request.path} ${response.status} in ${Math.round(performance.now() - started)} ms (attempt ${attempt})`);
    if (!response.ok) {
      throw apiErrorFromResponse(response.status, response.statusText, response.headers, text, {
        apiKey,
        taskId: request.taskId,
        what: request.what,
      });
    }
    try {
      return text ? (JSON.parse(text) as unknown) : undefined;
    } catch (error) {
      throw new APIError(`${request.what}: the service answered ${response.status} with a body that is not JSON`, {
        status: response.status,
        body: text,
        headers: response.headers,
        taskId: request.taskId,
        cause: error,
      });
    }
  }

  // A request that got no response: the caller's abort passes through untouched.
  #failure(error: unknown, request: HttpRequest): unknown {
    if (request.signal?.aborted) return request.signal.reason;
    // Unset only when the failure came before ky loaded, so it is not one of ky's.
    const ky = loadedKy;
    if (ky?.isTimeoutError(error)) {
      return new APITimeoutError(`${request.what}: no response within ${request.timeout ?? this.#config.timeout} ms`, {
        cause: error,
        taskId: request.taskId,
      });
    }
    if (ky?.isNetworkError(error) || error instanceof TypeError) {
      if (request.body && socketReason(error) === 'unexpected redirect') {
        return new APIConnectionError(
          `${request.what}: the service answered with a redirect, which an upload does not follow (replaying it would hold the whole file in memory)`,
          { cause: error, taskId: request.taskId },
        );
      }
      return new APIConnectionError(`${request.what}: could not reach the service (${redact(socketReason(error), this.#config.apiKey)})`, {
        cause: error,
        taskId: request.taskId,
      });
    }
    return error;
  }
}
