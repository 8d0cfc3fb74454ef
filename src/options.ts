/**
 * options.ts: every option of the SDK (the client's and each call's) and its default. Their
 * checks are in option-checks.ts. Imports types only: transport/, coordination/, schemas/,
 * internal/.
 */
import type { BatchJournal } from './coordination/batch-journal.ts';
import type { CallbackDedupeStore, Coordination, UploadCacheStore } from './coordination/ports.ts';
import type { LogLevel, Logger } from './internal/logger.ts';
import type { TaskResult } from './schemas/task.ts';
import type { Telemetry } from './telemetry/ports.ts';
import type { Fetch } from './transport/http-client.ts';
import type { TransferProgress } from './transport/progress.ts';

/** ms per request attempt, connection to last byte. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** ms per upload attempt. */
export const DEFAULT_UPLOAD_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_RETRIES = 2;
/** Task queries per second of all the waits of a client. */
export const DEFAULT_MAX_POLLS_PER_SECOND = 20;
/** ms from submission to the first query: the spec's recommendation. */
export const DEFAULT_INITIAL_DELAY_MS = 3_000;
/** The shortest gap between queries (the first one); later gaps follow the task's age. */
export const DEFAULT_INTERVAL_MS = 2_500;
/** The longest gap between queries. */
export const DEFAULT_MAX_INTERVAL_MS = 30_000;
/** Deadline of a wait on an image task when the caller gives no `timeout`. */
export const DEFAULT_IMAGE_TIMEOUT_MS = 10 * 60_000;
/** Deadline of a wait on a video task, or on a task waited for by id, when the caller gives no `timeout`. */
export const DEFAULT_VIDEO_TIMEOUT_MS = 30 * 60_000;
/** Largest callback body read (1 MiB). */
export const DEFAULT_CALLBACK_MAX_BYTES = 1024 * 1024;
/** ms a callback body may take to arrive. A task result is a few KB. */
export const DEFAULT_CALLBACK_READ_TIMEOUT_MS = 10_000;
/** ms a download may go without a byte once its response has started. */
export const DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS = 30_000;
/** A cached upload is reused only with more than this left of its 24 hours. */
export const DEFAULT_UPLOAD_CACHE_MARGIN_MS = 60 * 60_000;
/** `redisCoordination`: prefix of every key and of the channel. */
export const DEFAULT_REDIS_PREFIX = 'omnimedia:';
/** `redisCoordination`: ms a lease and an instance's liveness outlive their holder. */
export const DEFAULT_LEASE_MS = 5_000;
/** `redisCoordination`: longest wait for one Redis call before the local fallback, in ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 500;
/** `createProxy`: ms per upstream request. */
export const DEFAULT_PROXY_TIMEOUT_MS = 60_000;
/** `createProxy`: ms a request body may make no progress. */
export const DEFAULT_PROXY_IDLE_TIMEOUT_MS = 30_000;
// The in-memory stores' sizes (DEFAULT_DEDUPE_MAX_ENTRIES, DEFAULT_UPLOAD_CACHE_MAX_ENTRIES)
// are in coordination/memory.ts, which may not import this module (CONTRIBUTING.md, "Architecture").

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
  /** Retries of a failed request, under the retry policy ([Errors and retries](https://github.com/omnimedia/omnimedia/blob/main/docs/errors-and-retries.md)). Default 2. */
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
   * with your own `store`. See the guide [Uploads and files](https://github.com/omnimedia/omnimedia/blob/main/docs/uploads-and-files.md).
   */
  uploadCache?: boolean | UploadCacheOptions;
  /**
   * Most task queries per second that all the waits of this client send together (a sliding
   * one-second window). Default 20. See the guide [Waiting and progress](https://github.com/omnimedia/omnimedia/blob/main/docs/waiting.md).
   */
  maxPollsPerSecond?: number;
  /**
   * State shared with the other instances of a fleet (`redisCoordination` from
   * `omnimedia/redis`): callbacks end every instance's waits, `onTask` runs once across the
   * fleet, one query budget and one poller per task, shared learning and upload cache, and a
   * journal that `tasks.pending()` reads. See the guide [Fleets on Redis](https://github.com/omnimedia/omnimedia/blob/main/docs/fleets.md).
   */
  coordination?: Coordination;
  /**
   * In a page: the app's proxy (`createProxy` from `omnimedia/proxy`, mounted on your server),
   * which holds the key. Relative URLs resolve against the page (where there is none yet, as
   * while a server renders the page's module, at the first request: a client made at module top
   * is fine); requests go to `<proxyURL>/v1/...` with the page's cookies (`credentials:
   * 'same-origin'`). Not with `apiKey` or `baseURL`. See the guide [Browser apps](https://github.com/omnimedia/omnimedia/blob/main/docs/browser-apps.md).
   */
  proxyURL?: string | undefined;
  /**
   * Where the client reports what it does: `openTelemetry()` from `omnimedia/otel` (spans of
   * every call and request, and metrics). Off by default: nothing is loaded or called. See the
   * guide [Observability](https://github.com/omnimedia/omnimedia/blob/main/docs/observability.md).
   */
  telemetry?: Telemetry | undefined;
}

/**
 * Options of `redisCoordination` (`omnimedia/redis`).
 *
 * @example
 * ```ts
 * const coordination = redisCoordination(redis, { prefix: 'media:', leaseMs: 5_000, commandTimeoutMs: 300 });
 * ```
 */
export interface RedisCoordinationOptions {
  /** Prefix of every key and of the channel, so several apps can share one Redis. Default `omnimedia:`. */
  prefix?: string;
  /**
   * How long a lease (who polls a task) and an instance's liveness outlive their holder, in
   * ms: within this time after an instance dies, another polls its tasks and `pending()`
   * lists them. Renewed every third of it. Default 5,000; at least 300.
   */
  leaseMs?: number;
  /** Longest wait for one Redis call before falling back to local state, in ms. Default 500. */
  commandTimeoutMs?: number;
  /** Where the outage warnings go (one when Redis goes away, one when it is back). Default `console`. */
  logger?: Logger;
}

/**
 * Options of the client's `uploadCache`.
 *
 * @example
 * ```ts
 * const client = new OmniMedia({ uploadCache: { maxEntries: 1000 } });
 * ```
 */
export interface UploadCacheOptions {
  /** Default: an in-memory store of up to `maxEntries` records. */
  store?: UploadCacheStore;
  /**
   * A cached upload is reused only while it has more than this many ms of validity left, so a
   * task queued now still finds its reference alive. Default 1 hour.
   */
  margin?: number;
  /** Size of the default in-memory store. Default 500. */
  maxEntries?: number;
}

/**
 * Per-call options of every request method.
 *
 * @example
 * ```ts
 * const submission = await client.images.generate(
 *   { model: 'omni-image', prompt: 'a lighthouse' },
 *   { timeout: 10_000, maxRetries: 0, signal: AbortSignal.timeout(15_000) },
 * );
 * ```
 */
export interface RequestOptions {
  /** Abort the request (and any retry sleep). */
  signal?: AbortSignal;
  /** ms for each attempt's whole exchange (connection, headers and body); overrides the client's. */
  timeout?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

/**
 * Options of `tasks.retrieve`.
 *
 * @example
 * ```ts
 * const task = await client.tasks.retrieve('task_123', { timeout: 5_000, maxRetries: 1 });
 * ```
 */
export interface RetrieveOptions extends RequestOptions {}

/**
 * Options of `uploads.image` and `uploads.video`.
 *
 * @example
 * ```ts
 * const upload = await client.uploads.image(bytes, { filename: 'cover.png', timeout: 120_000 });
 * ```
 */
export interface UploadOptions extends RequestOptions {
  /** The name sent with the file; default: the path's or `File`'s name, else `upload.<ext>`. */
  filename?: string;
  /** Called as the file's bytes go out: `loaded` of `total` (`undefined` for a stream of unknown size). */
  onProgress?: (progress: TransferProgress) => void;
}

/**
 * Progress of one file; for a task, `index` is its place in `data`.
 *
 * @example
 * ```ts
 * await client.files.download(task, { to: './out/', onProgress: ({ index, loaded, total }) => console.log(index, loaded, total) });
 * ```
 */
export interface DownloadProgress extends TransferProgress {
  /** The file being downloaded. */
  url: string;
  /** Its place in the task's `data` (0 for a single URL). */
  index: number;
}

/**
 * Options of `client.files.download`.
 *
 * @example
 * ```ts
 * const blob = await client.files.download(url, { timeout: 120_000, signal: AbortSignal.timeout(300_000) });
 * ```
 */
export interface DownloadOptions {
  /** Called as bytes arrive; `total` from Content-Length, `undefined` without it. */
  onProgress?: (progress: DownloadProgress) => void;
  /** Abort the download; a file being written is removed. */
  signal?: AbortSignal;
  /** ms until the response starts (default: the client's `timeout`). */
  timeout?: number;
  /**
   * ms the download may go without receiving a byte once the response has started (default
   * 30,000); then `APITimeoutError`. A large file may take long in all; a stalled one may not.
   */
  idleTimeout?: number;
  /** Retries before the response starts (default: the client's `maxRetries`). */
  maxRetries?: number;
  /**
   * Replace a file already at the target path (default `false`: an existing file is a
   * `ValidationError` before any request, and one that appears while downloading is never
   * replaced).
   */
  overwrite?: boolean;
}

/**
 * Options of `.wait()`, `client.tasks.wait()` and `client.tasks.watch()`. See the guide
 * [Waiting and progress](https://github.com/omnimedia/omnimedia/blob/main/docs/waiting.md).
 *
 * @example
 * ```ts
 * const task = await client.videos.generate({ prompt: 'a fox' }).wait({
 *   timeout: 20 * 60_000,
 *   onProgress: (t, { elapsedMs }) => console.log(t.status, Math.round(elapsedMs / 1000), 's'),
 * });
 * ```
 */
export interface WaitOptions {
  /**
   * Deadline for the whole wait in ms, from when it starts; then `WaitTimeoutError`. Default:
   * 10 min for images, 30 min for videos and for `tasks.wait` by id.
   */
  timeout?: number;
  /** Abort the wait: it rejects with the signal's reason, a sleep in progress ends at once. */
  signal?: AbortSignal;
  /** Called with each task seen (each query, and a task delivered by a verified callback). */
  onProgress?: (task: TaskResult, info: { elapsedMs: number; polls: number }) => void;
  /** ms from submission to the first query. Default 3000, the spec's recommendation. */
  initialDelay?: number;
  /**
   * The shortest gap between queries, in ms (the first gaps); later gaps are 24 % of the task's
   * age, so its end is noticed at most about a quarter of its run late. Default 2500.
   */
  interval?: number;
  /** The gap between queries never grows beyond this many ms (before ±10 % jitter). Default 30,000. */
  maxInterval?: number;
  /**
   * Use what this client learned about how long tasks of the same kind take, to query densely
   * around their expected end instead of from scratch. Default `true`.
   */
  learn?: boolean;
}

/**
 * Options of `parseCallback`.
 *
 * @example
 * ```ts
 * const task = await parseCallback(await request.text(), { maxBytes: 64 * 1024 });
 * ```
 */
export interface ParseCallbackOptions {
  /** Refuse a body larger than this many bytes (`too_large`). Default 1 MiB (1,048,576). */
  maxBytes?: number;
}

/**
 * Options of `callbacks.handler()` and `callbacks.nodeHandler()`.
 *
 * @example
 * ```ts
 * const handle = client.callbacks.handler(onTask, { verify: true, dedupe: true });
 * ```
 */
export interface CallbackHandlerOptions extends ParseCallbackOptions {
  /**
   * Re-read the task from the service (`GET /v1/tasks/{id}`, no key needed) and hand
   * `onTask` that version, not the posted one. Default `true`: callbacks are unsigned, so a
   * posted body is only a hint. Turn off only with a `callbackSecret` on the client.
   */
  verify?: boolean;
  /**
   * Run `onTask` once per task and status when the service delivers again. Default `true`
   * (in memory, the last 10,000 deliveries, per handler). Pass a `CallbackDedupeStore` to
   * share the record between instances, or `false` to see every delivery.
   */
  dedupe?: boolean | CallbackDedupeStore;
  /**
   * ms to receive the whole body; past it the delivery is answered 408 and the connection
   * closed, so a sender that stalls cannot hold a socket (Node's own request timeout is
   * 300 s). Default 10,000.
   */
  readTimeout?: number;
}

/**
 * Options of `client.batch(jobs, options)`. See the guide [Many tasks](https://github.com/omnimedia/omnimedia/blob/main/docs/many-tasks.md).
 *
 * @example
 * ```ts
 * for await (const line of client.batch('jobs.jsonl', { journal: 'out/journal.jsonl', download: 'out/files' })) {
 *   console.log(line.id, line.status);
 * }
 * ```
 */
export interface BatchOptions {
  /** Most submissions in flight, or `'auto'` (default): 4 at first, then paced to the rate the service admits (a 429/503 sets it), in flight following rate × answer time. Waits never count. */
  concurrency?: number | 'auto';
  /**
   * Where each job's progress is recorded, so that a batch run again after a crash submits no job twice: a file
   * path (Node; JSON Lines flushed to disk at each entry) or a `BatchJournal` (`omnimedia/coordination`;
   * `redisBatchJournal` from `omnimedia/redis`). Default: in memory (a resumed call in the same process only).
   */
  journal?: string | BatchJournal;
  /** Stops new submissions at once; the iteration ends once the submissions in flight are answered and journaled. */
  signal?: AbortSignal;
  /** Submit again the jobs sent with no answer received (`unknown`): each may exist already, and be paid twice. Default `false`. */
  resubmitUnknown?: boolean;
  /** Run the valid jobs when some are invalid (status `invalid`). Default `false`: a `ValidationError` listing every bad one, nothing sent. */
  skipInvalid?: boolean;
  /** Only validate: nothing is sent; one line per job, status `valid` or `invalid`. */
  dryRun?: boolean;
  /** A directory (Node) to download each completed task's files into: `<id>.<ext>`, or `<id>-<k>.<ext>` for several. */
  download?: string;
  /** Options of every wait (`timeout`, `interval`...); `signal` and `onProgress` are the batch's. */
  wait?: Omit<WaitOptions, 'signal' | 'onProgress'>;
  /** Called when a job moves: submitted, each new status of its task, finished. */
  onProgress?: (job: BatchProgress) => void;
}

/**
 * A job that moved, for `BatchOptions.onProgress`.
 *
 * @example
 * ```ts
 * const onProgress = (job: BatchProgress) => console.log(job.id, job.status, job.task_id ?? '');
 * ```
 */
export interface BatchProgress {
  /** The job's id. */
  id: string;
  /** `submitting`, then its task's status (`pending`, `processing`...), then the result line's status. */
  status: string;
  /** The task, once the service accepted the submission. */
  task_id?: string;
  /** The task as last seen, while it runs. */
  task?: TaskResult;
}
