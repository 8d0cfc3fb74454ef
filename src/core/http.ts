import ky, { isNetworkError, isTimeoutError, type KyInstance } from 'ky';
import { apiErrorFromResponse } from './api-error.ts';
import { APIConnectionError, APIError, APITimeoutError, AuthenticationError } from './errors.ts';
import { redact, type Logger } from './logger.ts';
import { withRetries, type RetryKind } from './retry.ts';

/** The `fetch` the client calls: the platform's by default, or the `fetch` option. */
export type Fetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

export interface HttpConfig {
  baseURL: string;
  apiKey: string | undefined;
  timeout: number;
  maxRetries: number;
  fetch: Fetch | undefined;
  defaultHeaders: Record<string, string>;
  logger: Logger;
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
   * its source). Such a request does not follow redirects: see `#attempt`.
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

/** The error and its causes, outermost first. */
function causes(error: unknown): { message?: unknown }[] {
  const chain: { message?: unknown }[] = [];
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 8; depth++, e = (e as { cause?: unknown }).cause)
    chain.push(e as { message?: unknown });
  return chain;
}

/** The one HTTP layer: ky for the exchange (its own retry off), our policy for retries. */
export class HttpClient {
  readonly #ky: KyInstance;
  /** For URLs outside the service (result files): no prefix, no default headers, no key. */
  readonly #plain: KyInstance;
  readonly #config: HttpConfig;

  constructor(config: HttpConfig) {
    this.#config = config;
    this.#ky = ky.create({
      prefix: config.baseURL,
      // ky's retry would tee every upload body into memory; ours rebuilds the body instead.
      retry: 0,
      throwHttpErrors: false,
      headers: config.defaultHeaders,
      ...(config.fetch ? { fetch: config.fetch } : {}),
    });
    this.#plain = ky.create({ retry: 0, throwHttpErrors: false, ...(config.fetch ? { fetch: config.fetch } : {}) });
  }

  /**
   * GET an absolute URL outside the API (a result file) and resolve with the response once
   * its status is OK, its body unread, for the caller to stream. Sends neither the API key nor
   * the default headers: result URLs may live on another host. Retried like a task query
   * until the response starts; a body cut off later is the caller's to handle.
   */
  async open(url: string, options: { what: string; signal?: AbortSignal | undefined; timeout?: number | undefined; maxRetries?: number | undefined }): Promise<Response> {
    const request: HttpRequest = { method: 'GET', path: url, auth: false, retry: 'query', ...options };
    return withRetries(
      async () => {
        let response: Response;
        try {
          response = await this.#plain(url, {
            method: 'GET',
            timeout: options.timeout ?? this.#config.timeout,
            ...(options.signal ? { signal: options.signal } : {}),
          });
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
    const started = performance.now();
    let response: Response;
    let built: Awaited<ReturnType<NonNullable<HttpRequest['body']>>> | undefined;
    try {
      built = request.body ? await request.body() : undefined;
      response = await this.#ky(request.path, {
        method: request.method,
        timeout: request.timeout ?? this.#config.timeout,
        ...(request.json !== undefined ? { json: request.json } : {}),
        // redirect: 'error' keeps fetch from tee-ing the body to replay it on a 307/308: a
        // tee holds every byte sent until the response, the whole file (measured: +file size
        // of RSS on Node's fetch). An upload endpoint has no reason to redirect.
        ...(built ? { body: built.body, redirect: 'error' as const } : {}),
        headers: {
          ...built?.headers,
          ...(request.auth ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      await built?.release?.();
      throw this.#failure(error, request);
    }
    const text = await response.text().catch((error: unknown) => {
      throw this.#failure(error, request);
    });
    // The service may answer (an error, say) before it has read the whole body.
    await built?.release?.();
    logger.debug(`${request.method} /${request.path} ${response.status} in ${Math.round(performance.now() - started)} ms (attempt ${attempt})`);
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
    const detail = redact(String((error as Error)?.message ?? error), this.#config.apiKey);
    if (isTimeoutError(error)) {
      return new APITimeoutError(`${request.what}: no response within ${request.timeout ?? this.#config.timeout} ms`, {
        cause: error,
        taskId: request.taskId,
      });
    }
    if (isNetworkError(error) || error instanceof TypeError) {
      const cause = (error as { cause?: { message?: string; code?: string } }).cause;
      if (request.body && causes(error).some((e) => e.message === 'unexpected redirect')) {
        return new APIConnectionError(
          `${request.what}: the service answered with a redirect, which an upload does not follow (replaying it would hold the whole file in memory)`,
          { cause: error, taskId: request.taskId },
        );
      }
      const why = cause?.code ?? cause?.message ?? detail;
      return new APIConnectionError(`${request.what}: could not reach the service (${redact(String(why), this.#config.apiKey)})`, {
        cause: error,
        taskId: request.taskId,
      });
    }
    return error;
  }
}
