import { CallbackTokens } from './callbacks/token.ts';
import { OmniMediaError } from './errors.ts';
import { HttpClient, type Fetch } from './transport/http-client.ts';
import { createLogger, isLogLevel, type LevelledLogger, type LogLevel, type Logger } from './internal/logger.ts';
import { DEFAULT_MAX_POLLS_PER_SECOND, PollScheduler } from './waiting/scheduler.ts';
import { TaskDurations } from './waiting/durations.ts';
import { isBrowser, readEnv } from './internal/runtime.ts';
import { TaskEvents } from './waiting/task-events.ts';
import { Callbacks } from './resources/callbacks.ts';
import { UploadCache, type UploadCacheOptions } from './uploads/cache.ts';
import { Files } from './resources/files.ts';
import { Images } from './resources/images.ts';
import { Tasks } from './resources/tasks.ts';
import { Uploads } from './resources/uploads.ts';
import { Videos } from './resources/videos.ts';

/**
 * Options of `new OmniMedia({...})`. Every one is optional.
 *
 * @example
 * ```ts
 * const client = new OmniMedia({
 *   apiKey: process.env.MY_KEY,
 *   baseURL: 'https://media.example.com',
 *   timeout: 30_000,
 *   maxRetries: 3,
 *   logLevel: 'info',
 * });
 * ```
 */
export interface ClientOptions {
  /** Default: `OMNIMEDIA_API_KEY`. Submissions and uploads need it; task queries do not. */
  apiKey?: string | undefined;
  /** The service's address. Default: `OMNIMEDIA_BASE_URL`. There is no built-in host. */
  baseURL?: string | undefined;
  /** ms for each request attempt's whole exchange: connection, headers and body. Default 60,000. */
  timeout?: number;
  /** The same for uploads, in ms. Default 600,000. */
  uploadTimeout?: number;
  /** Retries of a failed request, under the retry policy (see the README). Default 2. */
  maxRetries?: number;
  /**
   * A `fetch` to use instead of the platform's (a proxy, instrumentation, a test double). It is
   * called as `fetch(url, init)`, with the method, headers, body and signal in `init`.
   */
  fetch?: Fetch;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
  /**
   * Allow an API key in a browser, where anyone who opens the page can read it. Not needed
   * for a keyless client (task queries need no key).
   */
  dangerouslyAllowBrowser?: boolean;
  /** Where log lines go. Default `console`. The API key never appears in them. */
  logger?: Logger;
  /** Default: `OMNIMEDIA_LOG`, else `warn`. */
  logLevel?: LogLevel;
  /**
   * Makes every `callback_url` this client sends carry a token (query parameter
   * `omnimedia_token`) that `callbacks.handler`/`nodeHandler` check, answering 401 without
   * it. A list rotates: the first secret makes new URLs, every one is accepted.
   */
  callbackSecret?: string | readonly string[] | undefined;
  /**
   * Reuse uploads of the same bytes while they have comfortably more than `margin` (default
   * 1 h) of their 24 hours left. Off by default; `true` for an in-memory store, or options
   * with your own `store`. See "Uploads and files" in the README.
   */
  uploadCache?: boolean | UploadCacheOptions;
  /**
   * Most task queries per second that all the waits of this client send together (a sliding
   * one-second window). Default 20. See the README, "Waiting for results".
   */
  maxPollsPerSecond?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_UPLOAD_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_RETRIES = 2;

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0)
    throw new OmniMediaError(`new OmniMedia: ${name} must be a non-negative integer (got ${String(value)})`);
  return value;
}

// A timer cannot hold more (setTimeout fires at once beyond it), and 0 would time out every request.
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function timeoutMs(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS)
    throw new OmniMediaError(`new OmniMedia: ${name} must be a whole number of ms from 1 to ${MAX_TIMEOUT_MS} (got ${String(value)})`);
  return value;
}

/**
 * The client of the image and video generation service.
 *
 * @example
 * ```ts
 * import { OmniMedia } from 'omnimedia';
 *
 * const client = new OmniMedia(); // OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL from the environment
 * const video = await client.videos.generate({ prompt: 'a fox in the snow', seconds: 6 }).wait();
 * console.log(video.data?.[0]?.url);
 * ```
 */
export class OmniMedia {
  readonly images: Images;
  readonly videos: Videos;
  readonly uploads: Uploads;
  readonly tasks: Tasks;
  readonly callbacks: Callbacks;
  readonly files: Files;

  /** The service's address, ending in `/`. */
  readonly baseURL: string;
  /** Per-request timeout of uploads in ms. */
  readonly uploadTimeout: number;
  /** @internal The one HTTP layer every resource goes through. */
  readonly http: HttpClient;
  /** @internal */
  readonly logger: LevelledLogger;
  /** The upload cache, when the `uploadCache` option turned it on. */
  readonly uploadCache: UploadCache | undefined;
  /** @internal Verified callbacks publish here; pending waits listen. */
  readonly taskEvents = new TaskEvents();
  /** @internal The `callbackSecret` tokens, when one is set. */
  readonly callbackTokens: CallbackTokens | undefined;
  /** @internal The one scheduler (one timer, one rate cap) of all this client's waits. */
  readonly pollScheduler: PollScheduler;
  /** @internal How long tasks of each kind took, for the waits that follow. */
  readonly taskDurations = new TaskDurations();

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? readEnv('OMNIMEDIA_API_KEY');
    const baseURL = options.baseURL ?? readEnv('OMNIMEDIA_BASE_URL');
    if (!baseURL) {
      throw new OmniMediaError(
        'new OmniMedia: no base URL. Pass baseURL to new OmniMedia({ baseURL }) or set the OMNIMEDIA_BASE_URL environment variable.',
      );
    }
    if (!URL.canParse(baseURL) || !/^https?:$/.test(new URL(baseURL).protocol)) {
      throw new OmniMediaError(`new OmniMedia: baseURL must be an absolute http(s) URL (got "${baseURL}")`);
    }
    if (apiKey && isBrowser() && !options.dangerouslyAllowBrowser) {
      throw new OmniMediaError(
        'new OmniMedia: an API key in a browser can be read by anyone who opens the page. ' +
          'Keep the key on a server, use a keyless client in the browser (task queries need no key), ' +
          'or pass dangerouslyAllowBrowser: true if you accept the risk.',
      );
    }
    const envLevel = readEnv('OMNIMEDIA_LOG');
    const level = options.logLevel ?? (isLogLevel(envLevel) ? envLevel : 'warn');
    this.logger = createLogger(options.logger ?? console, level, apiKey);
    this.baseURL = baseURL.endsWith('/') ? baseURL : `${baseURL}/`;
    this.uploadTimeout = timeoutMs('uploadTimeout', options.uploadTimeout, DEFAULT_UPLOAD_TIMEOUT_MS);
    this.http = new HttpClient({
      baseURL: this.baseURL,
      apiKey,
      timeout: timeoutMs('timeout', options.timeout, DEFAULT_TIMEOUT_MS),
      maxRetries: nonNegativeInteger('maxRetries', options.maxRetries, DEFAULT_MAX_RETRIES),
      fetch: options.fetch,
      defaultHeaders: { ...options.defaultHeaders },
      logger: this.logger,
    });
    const maxPolls = options.maxPollsPerSecond ?? DEFAULT_MAX_POLLS_PER_SECOND;
    if (!Number.isInteger(maxPolls) || maxPolls < 1)
      throw new OmniMediaError(`new OmniMedia: maxPollsPerSecond must be a positive integer (got ${String(maxPolls)})`);
    this.pollScheduler = new PollScheduler(maxPolls);
    this.images = new Images(this);
    this.videos = new Videos(this);
    this.uploads = new Uploads(this);
    this.tasks = new Tasks(this);
    this.callbackTokens = options.callbackSecret === undefined ? undefined : new CallbackTokens(options.callbackSecret);
    this.callbacks = new Callbacks(this);
    this.files = new Files(this);
    this.uploadCache = options.uploadCache
      ? new UploadCache(options.uploadCache === true ? {} : options.uploadCache)
      : undefined;
  }

  /** `true` when the client has an API key (submissions and uploads need one). */
  get hasApiKey(): boolean {
    return this.http.apiKey !== undefined;
  }
}
