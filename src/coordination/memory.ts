import { BoundedMap } from '../internal/bounded-map.ts';
import type { TaskResult } from '../schemas/task.ts';
import type {
  CachedUpload,
  CallbackDedupeStore,
  DedupeClaim,
  DurationsStore,
  JournalEntry,
  PollBudget,
  PollGrant,
  RateLimitDecision,
  RateLimitStore,
  SubmissionJournal,
  TaskEventBus,
  TaskListener,
  UploadCacheStore,
} from './ports.ts';

/** Deliveries a handler's in-memory dedupe remembers by default. */
export const DEFAULT_DEDUPE_MAX_ENTRIES = 10_000;
/** Records the in-memory upload cache holds by default. */
export const DEFAULT_UPLOAD_CACHE_MAX_ENTRIES = 500;
/** Kinds of task whose durations are remembered at most; the least recently used is forgotten first. */
export const MAX_REMEMBERED_KINDS = 256;
/** Submissions the in-memory journal holds at most, for a day at most (the service keeps a result 24 h). */
const MAX_JOURNAL_ENTRIES = 10_000;
const DAY_MS = 24 * 3_600_000;

/**
 * Claims in memory: the done ones, the least recently used dropped past `maxEntries` (a
 * long-running server stays bounded), and the ones in progress, never dropped (their `onTask`
 * runs now: dropping one would let a redelivery run it twice; there are as many as handlers
 * running at once).
 *
 * @example
 * ```ts
 * const handle = client.callbacks.handler(onTask, { dedupe: new MemoryDedupeStore(50_000) });
 * ```
 */
export class MemoryDedupeStore implements CallbackDedupeStore {
  readonly #done: BoundedMap<string, true>;
  readonly #inProgress = new Set<string>();

  constructor(maxEntries = DEFAULT_DEDUPE_MAX_ENTRIES) {
    this.#done = new BoundedMap(maxEntries);
  }

  /** `true` when free (now in progress), `'in_progress'` while another delivery handles it, `false` once done. */
  claim(key: string): DedupeClaim {
    if (this.#inProgress.has(key)) return 'in_progress';
    if (this.#done.has(key)) return false;
    this.#inProgress.add(key);
    return true;
  }

  /** Marks `key` done: a repeat is a duplicate. */
  complete(key: string): void {
    this.#inProgress.delete(key);
    this.#done.set(key, true);
  }

  /** Frees `key` (its handler threw), so the next delivery runs it again. */
  release(key: string): void {
    this.#inProgress.delete(key);
  }

  /** How many claims are held (in progress and done). */
  get size(): number {
    return this.#inProgress.size + this.#done.size;
  }
}

/**
 * The default store: a bounded map, least recently used out first.
 *
 * @example
 * ```ts
 * const client = new OmniMedia({ uploadCache: { store: new MemoryUploadCacheStore(100) } });
 * ```
 */
export class MemoryUploadCacheStore implements UploadCacheStore {
  readonly #entries: BoundedMap<string, CachedUpload>;

  constructor(maxEntries = DEFAULT_UPLOAD_CACHE_MAX_ENTRIES) {
    this.#entries = new BoundedMap(maxEntries);
  }

  /** The record kept under `key`, unless it expired or was evicted. */
  get(key: string): CachedUpload | undefined {
    return this.#entries.get(key);
  }

  /** Keeps `record` for `ttlMs`, evicting the least recently used record when full. */
  set(key: string, record: CachedUpload, ttlMs: number): void {
    this.#entries.set(key, record, ttlMs);
  }

  /** Forgets `key`. */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** How many records are held. */
  get size(): number {
    return this.#entries.size;
  }
}

/** Learned durations in memory: `MAX_REMEMBERED_KINDS` kinds, least recently used forgotten first. */
export class MemoryDurationsStore implements DurationsStore {
  readonly #byKind = new BoundedMap<string, number[]>(MAX_REMEMBERED_KINDS);

  get(kind: string): readonly number[] | undefined {
    return this.#byKind.get(kind);
  }

  add(kind: string, ms: number, keep: number): void {
    const samples = this.#byKind.get(kind) ?? [];
    samples.push(ms);
    if (samples.length > keep) samples.splice(0, samples.length - keep);
    this.#byKind.set(kind, samples);
  }

  /** Kinds remembered (for tests and leak checks). */
  get size(): number {
    return this.#byKind.size;
  }
}

/** News of tasks within one process: listeners per task id, gone when the last one leaves. */
export class MemoryTaskEvents implements TaskEventBus {
  readonly #listeners = new Map<string, Set<TaskListener>>();

  subscribe(taskId: string, listener: TaskListener): () => void {
    let set = this.#listeners.get(taskId);
    if (!set) this.#listeners.set(taskId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(taskId);
    };
  }

  publish(task: TaskResult): void {
    for (const listener of [...(this.#listeners.get(task.task_id) ?? [])]) listener(task);
  }

  /** How many tasks have listeners (for tests and leak checks). */
  get size(): number {
    return this.#listeners.size;
  }
}

const WINDOW_MS = 1_000;
const MAX_HOLD_MS = 5_000;

/** One query handed out. */
interface Slot {
  /**
   * When it stops counting: its answer, but no later than `MAX_HOLD_MS` after its start (a
   * request reaches the service long before that), so one hung request cannot stall the rest.
   */
  end: number;
}

/**
 * The query budget of one process. It holds where it matters, at the service: a query may
 * start only once the query `maxPerSecond` places before it, and every one before that, was
 * answered at least one second ago. A request reaches the service between its start and its
 * answer, so however late the event loop or the network delivers requests, the service never
 * sees more than `maxPerSecond` of them within one second. (A query unanswered after 5 s
 * stops counting, so a hung request cannot stall every wait; by then it has long reached the
 * service.)
 */
export class MemoryPollBudget implements PollBudget {
  declare readonly maxPerSecond: number;
  /** The last `maxPerSecond` slots, oldest at `#head` (a ring). */
  readonly #recent: Slot[] = [];
  #head = 0;
  /** Latest end among the slots that left the ring. */
  #retiredEnd = Number.NEGATIVE_INFINITY;

  constructor(maxPerSecond: number) {
    this.maxPerSecond = maxPerSecond;
  }

  take(now: number): PollGrant {
    const freeAt = this.#freeAt();
    if (freeAt > now) return { retryAt: freeAt };
    const slot: Slot = { end: now + MAX_HOLD_MS };
    if (this.#recent.length < this.maxPerSecond) this.#recent.push(slot);
    else {
      // A slot retired while in flight keeps its provisional end: later than its answer, so safe.
      this.#retiredEnd = Math.max(this.#retiredEnd, (this.#recent[this.#head] as Slot).end);
      this.#recent[this.#head] = slot;
      this.#head = (this.#head + 1) % this.maxPerSecond;
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        slot.end = Math.min(slot.end, Date.now());
      },
    };
  }

  /** When the next query may start: one second after the query `maxPerSecond` places back, and every earlier one, was answered. */
  #freeAt(): number {
    if (this.#recent.length < this.maxPerSecond) return Number.NEGATIVE_INFINITY;
    const oldest = this.#recent[this.#head] as Slot;
    return Math.max(this.#retiredEnd, oldest.end) + WINDOW_MS;
  }
}

/**
 * The journal of one process: at most 10,000 submissions awaiting their result, each for a day
 * at most. An entry is this process's until a wait of it gives up without the result (and no
 * other wait of it is left): then `pending()` lists it, until a wait takes it again. What was
 * submitted (`find`) is remembered a day after `clear` too, for the last 10,000 submissions.
 */
export class MemoryJournal implements SubmissionJournal {
  readonly #entries = new BoundedMap<string, { entry: JournalEntry; waits: number; given: boolean }>(MAX_JOURNAL_ENTRIES);
  readonly #submitted = new BoundedMap<string, JournalEntry>(MAX_JOURNAL_ENTRIES);

  record(entry: JournalEntry): void {
    const { task_id, kind, submitted_at, callback_nonce } = entry;
    const kept: JournalEntry = { task_id, kind, submitted_at };
    this.#entries.set(task_id, { entry: kept, waits: 0, given: false }, DAY_MS);
    this.#submitted.set(task_id, callback_nonce === undefined ? kept : { ...kept, callback_nonce }, DAY_MS);
  }

  find(taskId: string): JournalEntry | undefined {
    return this.#submitted.get(taskId);
  }

  adopt(taskId: string): void {
    const held = this.#entries.get(taskId);
    if (held) {
      held.waits++;
      held.given = false;
    }
  }

  release(taskId: string): void {
    const held = this.#entries.get(taskId);
    if (held && --held.waits <= 0) {
      held.waits = 0;
      held.given = true;
    }
  }

  clear(taskId: string): void {
    this.#entries.delete(taskId);
  }

  pending(): JournalEntry[] {
    return this.#list(true);
  }

  list(): JournalEntry[] {
    return this.#list(false);
  }

  #list(given: boolean): JournalEntry[] {
    return [...this.#entries.entries()].flatMap(([, held]) => (given && !held.given ? [] : [held.entry]));
  }
}

/** Keys the in-memory rate limits remember by default (identities of one process). */
const DEFAULT_RATE_LIMIT_KEYS = 100_000;

/**
 * Sliding-window counters in memory (one process): for each key, the times of the requests let
 * through in the last window, at most `limit` of them. Bounded: a key unused for its window is
 * forgotten, and past `maxKeys` the least recently used goes first.
 *
 * @example
 * ```ts
 * const proxy = createProxy({ authorize, rateLimit: { submissions: { limit: 20, windowMs: 60_000 } } }); // uses one
 * ```
 */
export class MemoryRateLimits implements RateLimitStore {
  readonly #times: BoundedMap<string, number[]>;
  readonly #now: () => number;

  constructor(maxKeys = DEFAULT_RATE_LIMIT_KEYS, now: () => number = Date.now) {
    this.#times = new BoundedMap(maxKeys, now);
    this.#now = now;
  }

  /** Count one request of `key` if fewer than `limit` were in the last `windowMs` ms; else say when to retry. */
  take(key: string, limit: number, windowMs: number): RateLimitDecision {
    const now = this.#now();
    const times = (this.#times.get(key) ?? []).filter((at) => at > now - windowMs);
    if (times.length >= limit) {
      this.#times.set(key, times, windowMs);
      return { allowed: false, retryAfterMs: Math.max(1, (times[times.length - limit] as number) + windowMs - now) };
    }
    times.push(now);
    this.#times.set(key, times, windowMs);
    return { allowed: true };
  }

  /** Keys held (for tests and leak checks). */
  get size(): number {
    return this.#times.size;
  }
}
