import type { OmniMedia } from '../client.ts';
import type { TaskResult } from '../schemas/task.ts';
import { OmniMediaError, TaskFailedError, ValidationError, WaitTimeoutError, type ValidationIssue } from '../errors.ts';
import type { Logger } from '../internal/logger.ts';
import type { PollScheduler } from './scheduler.ts';
import { isTransientInWait, transientDelay } from '../transport/retry-policy.ts';
import { isFailureStatus, isSuccessStatus, isTerminalStatus } from './status.ts';
import type { TaskDurations, ExpectedWindow } from './durations.ts';
import type { TaskEvents } from './task-events.ts';
import type { WaitOptions } from './task-promise.ts';

// The default cadence. Chosen with bench/suites/wait-cadence.ts against fixed 3 s and 6 s
// polling: few queries for long tasks, a short lag for short ones (see the README).
/** ms from submission to the first query: the spec's recommendation. */
export const DEFAULT_INITIAL_DELAY_MS = 3_000;
/** The first gap between queries; each next gap is `INTERVAL_GROWTH` times longer. */
export const DEFAULT_INTERVAL_MS = 3_000;
export const INTERVAL_GROWTH = 1.5;
/** The gap stops growing here during a task's first minutes... */
export const GAP_PLATEAU_MS = 14_000;
/** ...then stays under this fraction of the task's age (4 %)... */
export const GAP_AGE_FRACTION = 1 / 25;
/** ...and never exceeds `maxInterval` (default 30 s), reached at 12.5 minutes. */
export const DEFAULT_MAX_INTERVAL_MS = 30_000;
/** Each gap is moved by up to ±10 %, so that waits started together drift apart. */
export const GAP_JITTER = 0.1;
/**
 * In a learned window, queries are this many per window, or closer (3 % of the expected end)
 * when the window is wide, and at least 1 s apart.
 */
const QUERIES_PER_WINDOW = 5;
const WINDOW_STEP_OF_END = 0.03;
const MIN_WINDOW_STEP_MS = 1_000;

/** Deadline of a wait on an image task when the caller gives no `timeout`. */
export const DEFAULT_IMAGE_TIMEOUT_MS = 10 * 60_000;
/** Deadline of a wait on a video task, or on a task waited for by id, when the caller gives no `timeout`. */
export const DEFAULT_VIDEO_TIMEOUT_MS = 30 * 60_000;

// A created_at this far from our clock is not trusted as the task's age.
const MAX_PLAUSIBLE_AGE_MS = 7 * 24 * 3_600_000;
const MAX_CLOCK_SKEW_MS = 60_000;

/** What the poller needs to wait for one task. */
export interface PollTarget {
  taskId: string;
  /** When the task was submitted (ms since the epoch), if known; the first query is timed from it. */
  submittedAt?: number | undefined;
  /** Deadline when the caller gives no `timeout`. */
  defaultTimeout: number;
  /** The kind of task for learning durations, when the submission knew it. */
  durationKey?: string | undefined;
  /** One query of the task, one request (the poller does its own retrying). */
  retrieve(signal: AbortSignal): Promise<TaskResult>;
  scheduler: PollScheduler;
  events: TaskEvents;
  durations: TaskDurations;
  logger?: Logger | undefined;
}

/** What a submission tells the wait that follows it. */
export interface WaitContext {
  submittedAt?: number | undefined;
  defaultTimeout: number;
  durationKey?: string | undefined;
}

/** The poll target of a task on `client`: its scheduler, its task events, its learned durations. */
export function pollTarget(client: OmniMedia, taskId: string, context: WaitContext): PollTarget {
  return {
    taskId,
    ...context,
    retrieve: (signal) => client.tasks.retrieve(taskId, { signal, maxRetries: 0 }),
    scheduler: client.pollScheduler,
    events: client.taskEvents,
    durations: client.taskDurations,
    logger: client.logger,
  };
}

/** The last `fail_reason` of a failed task: the task's own, else its last failed attempt's. */
export function lastFailReason(task: TaskResult): string | undefined {
  if (task.fail_reason) return task.fail_reason;
  const failed = (task.attempts ?? []).filter((a) => a.fail_reason);
  return failed.at(-1)?.fail_reason ?? undefined;
}

interface CadenceSettings {
  initialDelay: number;
  interval: number;
  maxInterval: number;
  learn: boolean;
}

function checkOptions(options: WaitOptions, taskId: string): CadenceSettings & { timeout: number | undefined } {
  const issues: ValidationIssue[] = [];
  const ms = (name: keyof WaitOptions, value: number | undefined, positive: boolean) => {
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0))
      issues.push({ path: name, message: `must be a ${positive ? 'positive' : 'non-negative'} number of ms (got ${String(value)})` });
  };
  ms('timeout', options.timeout, true);
  ms('initialDelay', options.initialDelay, false);
  ms('interval', options.interval, true);
  ms('maxInterval', options.maxInterval, true);
  if (options.interval !== undefined && options.maxInterval !== undefined && options.interval > options.maxInterval)
    issues.push({ path: 'interval', message: `must not exceed maxInterval (${options.maxInterval} ms)` });
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    issues.push({ path: 'onProgress', message: 'must be a function' });
  if (issues.length > 0) {
    const error = new ValidationError(issues, 'wait options');
    error.taskId = taskId;
    throw error;
  }
  const maxInterval = options.maxInterval ?? DEFAULT_MAX_INTERVAL_MS;
  return {
    timeout: options.timeout,
    initialDelay: options.initialDelay ?? DEFAULT_INITIAL_DELAY_MS,
    interval: options.interval ?? Math.min(DEFAULT_INTERVAL_MS, maxInterval),
    maxInterval,
    learn: options.learn ?? true,
  };
}

/**
 * When to send the next query. The plain schedule: the first query `initialDelay` after
 * submission, then gaps of `interval` growing ×1.5 per query, each capped at
 * max(14 s, 4 % of the task's age) and at `maxInterval`, with ±10 % jitter. With a learned
 * window for this kind of task: sparse queries (every `maxInterval`) until the window opens,
 * five evenly spaced inside it (closer when it is wide: at most 3 % of its end apart), then
 * the plain growth again if the task runs late.
 */
export class Cadence {
  readonly #settings: CadenceSettings;
  readonly #random: () => number;
  #gap: number;

  constructor(settings: CadenceSettings, random: () => number = Math.random) {
    this.#settings = settings;
    this.#random = random;
    this.#gap = settings.interval;
  }

  /** Age (ms since submission) of the first query. */
  firstQueryAge(expected: ExpectedWindow | undefined): number {
    const { initialDelay, maxInterval } = this.#settings;
    if (!expected || !this.#settings.learn) return initialDelay;
    return Math.max(initialDelay, Math.min(expected.from, maxInterval));
  }

  /** ms from a query made at `age` (ms since submission) to the next one. */
  nextGap(age: number, expected: ExpectedWindow | undefined): number {
    const { maxInterval } = this.#settings;
    const cap = Math.min(maxInterval, Math.max(GAP_PLATEAU_MS, this.#settings.interval, age * GAP_AGE_FRACTION));
    if (expected && this.#settings.learn && age < expected.to) {
      const dense = Math.min((expected.to - expected.from) / QUERIES_PER_WINDOW, expected.to * WINDOW_STEP_OF_END);
      const step = Math.min(cap, Math.max(MIN_WINDOW_STEP_MS, dense));
      // If the task runs past the window, the plain growth resumes from the dense step.
      this.#gap = step;
      if (age < expected.from) return Math.min(expected.from - age, maxInterval);
      return this.#jitter(step);
    }
    const gap = Math.min(this.#gap, cap);
    this.#gap = Math.min(this.#gap * INTERVAL_GROWTH, maxInterval);
    return this.#jitter(gap);
  }

  #jitter(gap: number): number {
    return gap * (1 + GAP_JITTER * (2 * this.#random() - 1));
  }
}

type Interruption = { kind: 'abort' } | { kind: 'deadline' } | { kind: 'event'; task: TaskResult };

/** Submission time from a task's `created_at` (seconds, or ms when that large), when plausible. */
function originFromCreatedAt(task: TaskResult, now: number): number | undefined {
  const created = task.created_at;
  if (typeof created !== 'number' || !Number.isFinite(created) || created <= 0) return undefined;
  const ms = created > 1e11 ? created : created * 1000;
  return ms <= now + MAX_CLOCK_SKEW_MS && now - ms <= MAX_PLAUSIBLE_AGE_MS ? Math.min(ms, now) : undefined;
}

/**
 * The one poller. Yields each task seen (by a query, or published by a verified callback)
 * until the task ends: returns after yielding a completed task, throws `TaskFailedError`
 * after yielding a failed one, `WaitTimeoutError` at the deadline, the signal's reason on
 * abort. Transient query failures are retried inside the wait. Stopping the iteration
 * (`break`, `return()`) stops polling at once.
 */
export async function* observeTask(target: PollTarget, options: WaitOptions = {}): AsyncGenerator<TaskResult, void, undefined> {
  const { taskId, scheduler, events, durations } = target;
  const settings = checkOptions(options, taskId);
  const { signal, onProgress } = options;
  signal?.throwIfAborted();

  const started = Date.now();
  const timeout = settings.timeout ?? target.defaultTimeout;
  const cadence = new Cadence(settings);
  let origin = target.submittedAt;
  let key = target.durationKey;
  let last: TaskResult | undefined;
  let polls = 0;
  let failures = 0;

  // Everything that ends a wait early aborts `stop`, which ends the sleep or the request in
  // flight at once; `interruption` says why.
  const stop = new AbortController();
  let interruption: Interruption | undefined;
  const interrupt = (why: Interruption) => {
    if (interruption) return;
    interruption = why;
    stop.abort(why.kind);
  };
  const onAbort = () => interrupt({ kind: 'abort' });
  signal?.addEventListener('abort', onAbort, { once: true });
  scheduler.wakeAt(started + timeout, stop.signal).then(
    () => interrupt({ kind: 'deadline' }),
    () => {},
  );
  const unsubscribe = events.subscribe(taskId, (task) => {
    if (isTerminalStatus(task.status)) interrupt({ kind: 'event', task });
  });

  try {
    const expected = () => (origin === undefined || key === undefined ? undefined : durations.expected(key));
    // Right away for a task of unknown age (a wait by id); else `initialDelay` after
    // submission, which is now already when `.wait()` is called late.
    let nextAt = origin === undefined ? started : Math.max(started, origin + cadence.firstQueryAge(expected()));

    for (;;) {
      let task: TaskResult | undefined;
      try {
        const release = await scheduler.querySlot(nextAt, stop.signal);
        try {
          polls++;
          task = await target.retrieve(stop.signal);
        } finally {
          release();
        }
        failures = 0;
      } catch (error) {
        if (!interruption) {
          if (!isTransientInWait(error)) {
            if (error instanceof OmniMediaError) error.taskId ??= taskId;
            throw error;
          }
          failures++;
          // Inside a wait even a long Retry-After is honoured: the deadline bounds it.
          const delay = transientDelay(error, failures);
          target.logger?.info(`wait(${taskId}): query failed (${(error as Error).message}); next query in ${Math.round(delay)} ms`);
          nextAt = Date.now() + delay;
          continue;
        }
      }

      if (!(task && isTerminalStatus(task.status)) && interruption) {
        if (interruption.kind === 'abort') throw signal?.reason;
        if (interruption.kind === 'deadline') throw new WaitTimeoutError(taskId, timeout, task ?? last);
        task = interruption.task;
      }
      if (!task) continue;

      const now = Date.now();
      last = task;
      origin ??= originFromCreatedAt(task, now);
      key ??= task.normalized_model ?? undefined;
      onProgress?.(task, { elapsedMs: now - started, polls });
      if (isSuccessStatus(task.status)) durations.record(key, task);
      yield task;

      if (isSuccessStatus(task.status)) return;
      if (isFailureStatus(task.status)) {
        throw new TaskFailedError(task, lastFailReason(task));
      }
      // Unknown statuses (and pending, processing) keep the wait going.
      const age = origin === undefined ? now - started : now - origin;
      nextAt = now + cadence.nextGap(age, expected());
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener('abort', onAbort);
    // Cancels the deadline wake-up and any sleep: nothing of this wait stays scheduled.
    stop.abort('done');
  }
}

/** Poll until the task completes; see `observeTask` for how it ends. */
export async function waitForTask(target: PollTarget, options: WaitOptions = {}): Promise<TaskResult> {
  let last: TaskResult | undefined;
  for await (const task of observeTask(target, options)) last = task;
  // observeTask returns only after yielding a completed task.
  return last as TaskResult;
}

/** What makes one observation of a task a change: its status and its attempts. */
function changeKey(task: TaskResult): string {
  const attempts = (task.attempts ?? []).map((a) => `${a.attempt_no ?? ''}:${a.status ?? ''}:${a.fail_reason ?? ''}`);
  return JSON.stringify([task.status, task.attempt_count ?? null, attempts]);
}

/** Yield each observed change of the task (status, attempts) until it ends. */
export async function* watchTask(target: PollTarget, options: WaitOptions = {}): AsyncGenerator<TaskResult, void, undefined> {
  let seen: string | undefined;
  for await (const task of observeTask(target, options)) {
    const key = changeKey(task);
    if (key === seen) continue;
    seen = key;
    yield task;
  }
}
