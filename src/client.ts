/**
 * client.ts: `OmniMedia`, the composition root. It reads the options, builds the transport and
 * the state a fleet would share (coordination/ ports, in memory here), and hands each resource
 * the narrow ports it needs. Only index.ts imports this file.
 */
import { CallbackTokens } from './callbacks/token.ts';
import { MemoryJournal } from './coordination/memory.ts';
import type { SubmissionJournal, TaskEventBus } from './coordination/ports.ts';
import { createLogger, type LevelledLogger } from './internal/logger.ts';
import { createRedactor } from './internal/redact.ts';
import { isBrowser, readEnv } from './internal/runtime.ts';
import { resolveClientOptions } from './option-checks.ts';
import type { BatchOptions, ClientOptions } from './options.ts';
import { runClientBatch } from './batch/engine-entry.ts';
import { batchPorts } from './resources/batch.ts';
import type { BatchJob, BatchResult } from './schemas/batch.ts';
import { Callbacks } from './resources/callbacks.ts';
import type { ResourceContext } from './resources/context.ts';
import { Files } from './resources/files.ts';
import { Images } from './resources/images.ts';
import { Tasks } from './resources/tasks.ts';
import { Uploads } from './resources/uploads.ts';
import { Videos } from './resources/videos.ts';
import { HttpClient } from './transport/http-client.ts';
import { UploadCache } from './uploads/cache.ts';
import { createUploader } from './uploads/send.ts';
import type { TaskDurations } from './waiting/durations.ts';
import { retrieveTask } from './waiting/retrieve-task.ts';
import type { PollScheduler } from './waiting/scheduler.ts';
import { waitPorts } from './waiting/wait-ports.ts';

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
  // The fields are `declare`d: the constructor assigns every one, and a class field would be
  // emitted as well, defined as undefined first (with errors.ts: -87 B gzip of the page bundle).
  /** Image tasks: `generate` and `edit`, each a {@link TaskPromise}. */
  declare readonly images: Images;
  /** Video tasks: `generate` (from text, images or chat messages) and `edit`. */
  declare readonly videos: Videos;
  /** Uploads: `image` and `video`, from a path, bytes, a Blob, a stream or a Response. */
  declare readonly uploads: Uploads;
  /** Following tasks: `retrieve`, `wait` and `watch` (no key needed). */
  declare readonly tasks: Tasks;
  /** Callbacks in: `handler`, `node`, `parse` and `url`. */
  declare readonly callbacks: Callbacks;
  /** Result files out: `download` to a Blob, a path or a stream. */
  declare readonly files: Files;

  /** The service's address, ending in `/`. */
  declare readonly baseURL: string;
  /** Per-request timeout of uploads in ms. */
  declare readonly uploadTimeout: number;
  /** @internal The one HTTP layer every resource goes through. */
  declare readonly http: HttpClient;
  /** @internal */
  declare readonly logger: LevelledLogger;
  /** The upload cache, when the `uploadCache` option turned it on. */
  declare readonly uploadCache: UploadCache | undefined;
  /** @internal Verified callbacks publish here; pending waits listen (the fleet's, with a coordination). */
  declare readonly taskEvents: TaskEventBus & { readonly size?: number };
  /** @internal The `callbackSecret` tokens, when one is set. */
  declare readonly callbackTokens: CallbackTokens | undefined;
  /** @internal The one scheduler (one timer, one query budget) of all this client's waits. */
  declare readonly pollScheduler: PollScheduler;
  /** @internal How long tasks of each kind took, for the waits that follow. */
  declare readonly taskDurations: TaskDurations;
  /** @internal Accepted submissions whose result has not been seen. */
  declare readonly journal: SubmissionJournal;

  constructor(options: ClientOptions = {}) {
    const settings = resolveClientOptions(options, readEnv, isBrowser());
    // One redactor for everything this client writes: its logs, its errors.
    const redactor = createRedactor([settings.apiKey, ...(settings.callbackSecrets ?? [])]);
    this.logger = createLogger(settings.logger, settings.logLevel, redactor);
    this.baseURL = settings.baseURL;
    this.uploadTimeout = settings.uploadTimeout;
    this.http = new HttpClient({ ...settings, logger: this.logger, redactor });
    const { coordination, telemetry } = settings;
    this.journal = coordination?.journal ?? new MemoryJournal();
    const waiting = waitPorts(this.http, settings.maxPollsPerSecond, this.logger, coordination ?? { journal: this.journal }, telemetry);
    this.pollScheduler = waiting.scheduler;
    this.taskEvents = waiting.events;
    this.taskDurations = waiting.durations;
    this.callbackTokens = settings.callbackSecrets && new CallbackTokens(settings.callbackSecrets, redactor.add);
    this.uploadCache = settings.uploadCache && new UploadCache(settings.uploadCache, this.logger.warn);

    const { http, logger } = this;
    const context: ResourceContext = {
      http,
      callbackTokens: this.callbackTokens,
      journal: this.journal,
      upload: createUploader({ http, cache: this.uploadCache, uploadTimeout: this.uploadTimeout, logger, telemetry }),
      waiting,
      telemetry,
      delivery: {
        retrieve: (taskId, signal, span) => retrieveTask(http, taskId, signal ? { signal } : {}, span),
        tokens: this.callbackTokens,
        events: this.taskEvents,
        journal: this.journal,
        logger,
        // On a fleet one record for every handler of every instance: onTask runs once.
        sharedDedupe: coordination?.dedupe,
        telemetry,
      },
    };
    this.images = new Images(context);
    this.videos = new Videos(context);
    this.uploads = new Uploads(context);
    this.tasks = new Tasks(context);
    this.callbacks = new Callbacks(context);
    this.files = new Files(context);
  }

  /**
   * Run many jobs, resumable after any crash without paying twice: `jobs` is a JSONL file's
   * path (Node; one `{ id, op, params }` a line) or an iterable of job objects. Yields one
   * result line per job, in completion order. Every job is checked before anything is sent;
   * submissions go as fast as the service admits (`concurrency: 'auto'`); the `journal`
   * records each job before its submission is sent and after each answer, so a batch run again
   * skips what finished, waits on what was submitted, and reports `unknown` (never submits
   * again, unless `resubmitUnknown`) a job whose submission got no answer. See the guide
   * [Many tasks](https://github.com/omnimedia/omnimedia/blob/main/docs/many-tasks.md).
   *
   * @example
   * ```ts
   * const jobs = [
   *   { id: 'fox', op: 'images.generate', params: { model: 'omni-image', prompt: 'a fox' } },
   *   { id: 'boat', op: 'videos.generate', params: { prompt: 'a paper boat', seconds: 6 } },
   * ] as const;
   * for await (const line of client.batch(jobs, { journal: './batch-journal.jsonl' })) {
   *   console.log(line.id, line.status, line.urls);
   * }
   * ```
   */
  batch(jobs: string | Iterable<BatchJob> | AsyncIterable<BatchJob>, options?: BatchOptions): AsyncIterable<BatchResult> {
    return runClientBatch(batchPorts(this), jobs, options);
  }

  /** `true` when the client has an API key (submissions and uploads need one). */
  get hasApiKey(): boolean {
    return this.http.apiKey !== undefined;
  }
}
