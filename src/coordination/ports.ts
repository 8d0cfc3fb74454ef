/**
 * coordination/: the state a client shares with the rest of its fleet, behind named ports.
 * Each port is an interface the SDK's features call; the in-memory implementations (one
 * process, one bounded map under each) are in `memory.ts`, and `omnimedia/redis` implements
 * the same ports on Redis. Imports only schemas/ (types) and internal/.
 */
import type { TaskResult } from '../schemas/task.ts';
import type { ImageUpload, VideoUpload } from '../schemas/uploads.ts';

/**
 * What a claim of a delivery found: `true` it was free, and is now this delivery's to handle
 * (in progress); `false` it was handled already (done: a repeat, answered 200 "duplicate");
 * `'in_progress'` another delivery is handling it now (answered 503 with `Retry-After`, so the
 * service delivers again). A store that cannot tell in progress from done answers `false`.
 *
 * @example
 * ```ts
 * const claim: DedupeClaim = await store.claim(key);
 * if (claim === 'in_progress') console.log('being handled elsewhere; the service will deliver again');
 * ```
 */
export type DedupeClaim = boolean | 'in_progress';

/**
 * Where a callback handler records the deliveries it handles, so that a repeated delivery of
 * the same task and status runs `onTask` once, and a delivery is acknowledged only once it was
 * handled. A claim has three states: free, in progress (`claim` returned `true`, `onTask`
 * runs), done (`complete`). The default keeps them in memory (one process); with a
 * `coordination` the fleet shares its store; give your own (Redis, a unique index in SQL...) to
 * share them otherwise.
 *
 * @example
 * ```ts
 * // In progress for 10 minutes at most (a process that died inside onTask), done for a day.
 * const store: CallbackDedupeStore = {
 *   claim: async (key) => {
 *     if ((await redis.set(`cb:${key}`, 'busy', { NX: true, PX: 600_000 })) === 'OK') return true;
 *     return (await redis.get(`cb:${key}`)) === 'done' ? false : 'in_progress';
 *   },
 *   complete: async (key) => void (await redis.set(`cb:${key}`, 'done', { PX: 86_400_000 })),
 *   release: async (key) => void (await redis.del(`cb:${key}`)),
 * };
 * const handle = client.callbacks.handler(onTask, { dedupe: store });
 * ```
 */
export interface CallbackDedupeStore {
  /** Claim `key` for this delivery if it is free; see `DedupeClaim` for the answers. */
  claim(key: string): DedupeClaim | PromiseLike<DedupeClaim>;
  /** `onTask` threw: free `key`, so the next delivery runs it again. */
  release(key: string): void | PromiseLike<void>;
  /**
   * `onTask` returned for `key`: it is done for good, and a repeat is a duplicate. Optional:
   * a store without it cannot tell in progress from done, and answers `false` to both.
   */
  complete?(key: string): void | PromiseLike<void>;
}

/**
 * What the upload cache keeps: the record an upload returned.
 *
 * @example
 * ```ts
 * const store: UploadCacheStore = { get: (key) => saved.get(key), set: (key, record: CachedUpload) => void saved.set(key, record), delete: (key) => void saved.delete(key) };
 * ```
 */
export type CachedUpload = ImageUpload | VideoUpload;

/**
 * Where the upload cache keeps its records: the in-memory default, or your own (Redis, a
 * database, a KV store) so that several processes share uploads. Keys are short strings;
 * records are plain JSON. `ttlMs` is how long the record stays useful, for stores that expire
 * entries themselves.
 *
 * @example
 * ```ts
 * const store: UploadCacheStore = {
 *   get: async (key) => JSON.parse((await redis.get(key)) ?? 'null') ?? undefined,
 *   set: async (key, record, ttlMs) => void (await redis.set(key, JSON.stringify(record), 'PX', ttlMs)),
 *   delete: async (key) => void (await redis.del(key)),
 * };
 * const client = new OmniMedia({ uploadCache: { store } });
 * ```
 */
export interface UploadCacheStore {
  /** The record kept under `key`, or `undefined` (never kept, expired or evicted). */
  get(key: string): CachedUpload | undefined | PromiseLike<CachedUpload | undefined>;
  /** Keep `record` under `key`; it stays useful for `ttlMs` (a store may expire it then). */
  set(key: string, record: CachedUpload, ttlMs: number): void | PromiseLike<void>;
  /** Forget `key`: its record is too close to expiry to reuse, and a new upload replaces it. */
  delete(key: string): void | PromiseLike<void>;
}

/**
 * Where a client keeps what it learned about how long tasks of each kind take (their
 * `normalized_model`, or what the submission knew), so that later waits query around the
 * expected end. Durations in ms, most recent last.
 *
 * @example
 * ```ts
 * const samples = new Map<string, number[]>();
 * const store: DurationsStore = {
 *   get: (kind) => samples.get(kind),
 *   add: (kind, ms, keep) => void samples.set(kind, [...(samples.get(kind) ?? []), ms].slice(-keep)),
 * };
 * ```
 */
export interface DurationsStore {
  /** The durations remembered for `kind`, oldest first; `undefined` when none. */
  get(kind: string): readonly number[] | undefined | PromiseLike<readonly number[] | undefined>;
  /** Remember one more duration of `kind`, keeping the `keep` most recent. */
  add(kind: string, ms: number, keep: number): void | PromiseLike<void>;
}

/**
 * Hears news of one task; see `TaskEventBus`.
 *
 * @example
 * ```ts
 * const listener: TaskListener = (task) => console.log(task.task_id, task.status);
 * ```
 */
export type TaskListener = (task: TaskResult) => void;

/**
 * News of tasks: a verified callback publishes the task, and every pending wait for the same
 * id hears it and ends at once instead of at its next poll. A wait also publishes each change
 * of status its own queries see (the streams of `omnimedia/proxy` follow them; waits take only
 * an ended task as news).
 *
 * @example
 * ```ts
 * const unsubscribe = bus.subscribe('task_123', (task) => console.log('news:', task.status));
 * bus.publish({ task_id: 'task_123', status: 'completed' });
 * unsubscribe();
 * ```
 */
export interface TaskEventBus {
  /** Tell every listener of `task.task_id` (on a fleet: every instance's). */
  publish(task: TaskResult): void | PromiseLike<void>;
  /** Listen for news of one task; returns the function that stops listening. */
  subscribe(taskId: string, listener: TaskListener): () => void;
  /** The last finished version of a task published (and kept, on a fleet), if any. */
  latest?(taskId: string): Promise<TaskResult | undefined>;
  /**
   * The last version of a task published, finished or not (kept a while, on a fleet), if any:
   * what a proxy's new event stream sends first without reading the task.
   */
  current?(taskId: string): Promise<TaskResult | undefined>;
}

/**
 * Who polls a task when several instances wait on it: one holds the lease and queries, the
 * others listen for its news and take over when the lease lapses (its holder died).
 *
 * @example
 * ```ts
 * if (await leases.hold('task_123')) await queryTheTask(); // else: someone else polls it
 * ```
 */
export interface TaskLeases {
  /** How long a lease outlives its holder, in ms. */
  readonly ttlMs: number;
  /** Take or keep the lease of `taskId`: `true` when this instance polls it. */
  hold(taskId: string): Promise<boolean>;
  /**
   * Give the lease of `taskId` up (the wait ended). `ended`: the wait saw the task's result
   * (and the fleet has it), so nobody needs to poll it any more.
   */
  release(taskId: string, ended?: boolean): void | PromiseLike<void>;
}

/**
 * What `PollBudget.take` grants: a query may start now (call `release` at its answer), or not before `retryAt`.
 *
 * @example
 * ```ts
 * const grant: PollGrant = await budget.take(Date.now());
 * if ('retryAt' in grant) setTimeout(tryAgain, grant.retryAt - Date.now());
 * ```
 */
export type PollGrant =
  | {
      /** The query may start now; call this when its answer came, to free the slot. */
      release: () => void;
    }
  | {
      /** No slot now: the first moment (ms since the epoch) one may be free. */
      retryAt: number;
    };

/**
 * The budget of task queries per second of the waits of a client (or of a fleet). The
 * scheduler asks it before every query.
 *
 * @example
 * ```ts
 * const grant = await budget.take(Date.now());
 * if ('release' in grant) {
 *   await query();
 *   grant.release();
 * }
 * ```
 */
export interface PollBudget {
  /** Most task queries per second. */
  readonly maxPerSecond: number;
  /**
   * May a query start at `now` (ms since the epoch)? Takes the slot when it may. `due`: how
   * many queries are waiting for a slot now (this one included), so a budget that answers
   * over the network may grant several at once and hand them out at the next calls.
   */
  take(now: number, due?: number): PollGrant | PromiseLike<PollGrant>;
}

/**
 * One accepted submission: written before the submission resolves, cleared once its result is
 * seen, so a task submitted by a process that died can be found and waited on again.
 *
 * @example
 * ```ts
 * const entry: JournalEntry = { task_id: 'task_123', kind: 'video_generation', submitted_at: Date.now() };
 * ```
 */
export interface JournalEntry {
  /** The task, as the submission returned it. */
  task_id: string;
  /** What was submitted: `image_generation`, `image_edit`, `video_generation`, `video_edit`. */
  kind: string;
  /** When the service accepted it, in ms since the epoch. */
  submitted_at: number;
  /**
   * The nonce of the callback token its `callback_url` carried (a client with a
   * `callbackSecret`): a delivery of this task with that token is trusted as it is, any other
   * is read from the service. Kept by the journal, never listed by `tasks.pending()`.
   */
  callback_nonce?: string;
}

/**
 * The journal of accepted submissions whose result has not been seen yet.
 *
 * @example
 * ```ts
 * await journal.record({ task_id: 'task_123', kind: 'image_generation', submitted_at: Date.now() });
 * await journal.clear('task_123');
 * ```
 */
export interface SubmissionJournal {
  /** Record an accepted submission, owned by this instance. */
  record(entry: JournalEntry): void | PromiseLike<void>;
  /** A wait of this instance starts on `taskId`: it owns the entry (if there is one). */
  adopt(taskId: string): void | PromiseLike<void>;
  /**
   * A wait of this instance on `taskId` ended without its result (a time-out, an abort): when
   * it was the instance's last wait on it and the entry is still the instance's, nobody waits
   * on it any more, and `pending()` lists it.
   */
  release(taskId: string): void | PromiseLike<void>;
  /** The task's result was seen. */
  clear(taskId: string): void | PromiseLike<void>;
  /** Every entry. */
  list(): readonly JournalEntry[] | PromiseLike<readonly JournalEntry[]>;
  /**
   * The entry of `taskId` if it was recorded in the last 24 h, its result seen or not (so kept
   * after `clear`): what tells the callback handlers that a task is one of theirs. Optional for
   * a journal written before it; without it, a handler cannot tell its own tasks from another
   * account's and reads every delivery from the service (see the README, "Callbacks").
   */
  find?(taskId: string): JournalEntry | undefined | PromiseLike<JournalEntry | undefined>;
  /**
   * The entries nobody waits on: their owner is gone, or stopped waiting (`release`). What a
   * restart, or a later pass, resumes. Entries past 24 h (the service keeps results that long)
   * are dropped.
   */
  pending(): readonly JournalEntry[] | PromiseLike<readonly JournalEntry[]>;
}

/**
 * What `RateLimitStore.take` decides: counted, or refused with how long until it would not be.
 *
 * @example
 * ```ts
 * const decision: RateLimitDecision = await limits.take('submissions:user_42', 20, 60_000);
 * if (!decision.allowed) console.log(`retry in ${decision.retryAfterMs} ms`);
 * ```
 */
export type RateLimitDecision =
  | {
      /** Counted: the request may go. */
      allowed: true;
    }
  | {
      /** Refused: the window is full. */
      allowed: false;
      /** How long until a request would be let through, in ms. */
      retryAfterMs: number;
    };

/**
 * Sliding-window counters, one per key: the `rateLimit` of `createProxy` (`omnimedia/proxy`)
 * counts each identity's requests here, so that with a coordination the limit is one across
 * the fleet. A request counts for `windowMs` from when it was let through.
 *
 * @example
 * ```ts
 * const limits: RateLimitStore = new MemoryRateLimits();
 * await limits.take('uploads:user_42', 50, 60_000); // { allowed: true } the first 50 times a minute
 * ```
 */
export interface RateLimitStore {
  /**
   * Count one request of `key` if fewer than `limit` were counted in the last `windowMs` ms;
   * otherwise count nothing and say when the oldest of them leaves the window.
   */
  take(key: string, limit: number, windowMs: number): RateLimitDecision | PromiseLike<RateLimitDecision>;
}

/**
 * The state a client shares with its fleet, behind the ports above: pass one to
 * `new OmniMedia({ coordination })`. `omnimedia/redis` makes one on Redis.
 *
 * @example
 * ```ts
 * import { redisCoordination } from 'omnimedia/redis';
 * const coordination: Coordination = redisCoordination(redis, { prefix: 'omnimedia:' });
 * const client = new OmniMedia({ coordination });
 * ```
 */
export interface Coordination {
  /** The handlers' default dedupe store: `onTask` runs once per task and status across the fleet. */
  dedupe: CallbackDedupeStore;
  /** The upload cache's store (the cache is on by default with a coordination). */
  uploads: UploadCacheStore;
  /** What the fleet learned about how long tasks take. */
  durations: DurationsStore;
  /** News of tasks (each status seen, and their end), heard by every instance; kept for the waits and streams that start later. */
  events: TaskEventBus;
  /** Accepted submissions whose result has not been seen: what `tasks.pending()` reads. */
  journal: SubmissionJournal;
  /** Who polls a task that several instances wait on. */
  leases: TaskLeases;
  /** The fleet's query budget for a cap (every client of a fleet is given the same cap). */
  budget(maxPerSecond: number): PollBudget;
  /** Per-key request counters: what `createProxy`'s `rateLimit` counts on, one limit for the fleet. */
  rateLimits: RateLimitStore;
  /** Stop its timers and close what it opened (the subscriber connection), not the caller's client. */
  close(): Promise<void>;
}
