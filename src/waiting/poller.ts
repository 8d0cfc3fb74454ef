import type { SubmissionJournal, TaskEventBus, TaskLeases } from '../coordination/ports.ts';
import { OmniMediaError, TaskFailedError, WaitTimeoutError } from '../errors.ts';
import type { Logger } from '../internal/logger.ts';
import { firePort, guardOf, PORT_TIMEOUT_MS } from '../internal/port-call.ts';
import { isThenable } from '../internal/thenable.ts';
import { resolveWaitOptions } from '../option-checks.ts';
import type { WaitOptions } from '../options.ts';
import type { TaskResult } from '../schemas/task.ts';
import { epochMs } from '../schemas/time.ts';
import { failedBeforeSending, isTransientInWait, isUnusableAnswer, transientDelay } from '../transport/retry-policy.ts';
import type { Telemetry, TelemetrySpan } from '../telemetry/ports.ts';
import { Cadence } from './cadence.ts';
import type { TaskDurations } from './durations.ts';
import type { PollScheduler } from './scheduler.ts';
import { isFailureStatus, isSuccessStatus, isTerminalStatus } from './status.ts';
import { errorText } from '../internal/error-text.ts';
import { TaskEventStream, type TaskStreams } from './task-stream.ts';

// A created_at this far from our clock is not trusted as the task's age.
const MAX_PLAUSIBLE_AGE_MS = 7 * 24 * 3_600_000;
const MAX_CLOCK_SKEW_MS = 60_000;
/** Queries in a row that could not connect before a wait warns that the service cannot be reached. */
const UNREACHABLE_WARNING_AFTER = 3;

/** The ports a client's waits go through. */
export interface WaitPorts {
  /**
   * One query of a task (no retries: the poller does its own), for the wait `span` when
   * telemetry is on; its errors name the call `what` (default `tasks.retrieve`) with the id.
   */
  retrieve(taskId: string, signal: AbortSignal, span?: TelemetrySpan, what?: string): Promise<TaskResult>;
  scheduler: PollScheduler;
  events: TaskEventBus;
  durations: TaskDurations;
  /** Cleared once the task's end is seen. */
  journal?: SubmissionJournal | undefined;
  /** On a fleet: who polls the task (the others listen). */
  leases?: TaskLeases | undefined;
  logger?: Logger | undefined;
  /** Where waits are reported, when the `telemetry` option is set. */
  telemetry?: Telemetry | undefined;
  /** A page's client behind the app's proxy: waits read the task's event stream (task-stream.ts) rather than poll. */
  streams?: TaskStreams | undefined;
}

/** What the poller needs to wait for one task: the task, and the ports it waits through. */
export interface PollTarget extends WaitContext, Omit<WaitPorts, 'retrieve'> {
  taskId: string;
  /** One query of the task, one request (the poller does its own retrying). */
  retrieve(signal: AbortSignal, span?: TelemetrySpan): Promise<TaskResult>;
}

/** What a submission tells the wait that follows it. */
export interface WaitContext {
  /** When the task was submitted (ms since the epoch), if known; the first query is timed from it. */
  submittedAt?: number | undefined;
  /** Deadline when the caller gives no `timeout`. */
  defaultTimeout: number;
  /** The kind of task for learning durations, when the submission knew it. */
  durationKey?: string | undefined;
  /** The call the caller made, as its errors name it with the id (`tasks.wait`): not the query's name. */
  what?: string | undefined;
}

/** The poll target of one task on a client's ports. */
export function pollTarget(ports: WaitPorts, taskId: string, context: WaitContext): PollTarget {
  return { ...ports, ...context, taskId, retrieve: (signal, span) => ports.retrieve(taskId, signal, span, context.what) };
}

type Interruption = { kind: 'abort' } | { kind: 'deadline' } | { kind: 'event'; task: TaskResult };

/** Whether a stored result is a task (a store may hold anything). */
export function isStoredTask(task: unknown): boolean {
  return task === undefined || (typeof (task as TaskResult | null)?.task_id === 'string' && typeof (task as TaskResult).status === 'string');
}

/** Submission time from a task's `created_at` (in any unit: schemas/time.ts), when plausible. */
function originFromCreatedAt(task: TaskResult, now: number): number | undefined {
  const ms = epochMs(task.created_at);
  if (ms === undefined || ms <= 0) return undefined;
  return ms <= now + MAX_CLOCK_SKEW_MS && now - ms <= MAX_PLAUSIBLE_AGE_MS ? Math.min(ms, now) : undefined;
}

/**
 * The one poller. Yields each task seen (by a query, or published by a verified callback)
 * until the task ends: returns after yielding a completed task, throws `TaskFailedError`
 * after yielding a failed one, `WaitTimeoutError` at the deadline, the signal's reason on
 * abort. Transient query failures are retried inside the wait. Stopping the iteration
 * (`break`, `return()`) stops polling at once. `span`: the wait's, when telemetry is on.
 */
export async function* observeTask(target: PollTarget, options?: WaitOptions, span?: TelemetrySpan): AsyncGenerator<TaskResult, void, undefined> {
  const { taskId, scheduler, events, durations, leases } = target;
  const settings = resolveWaitOptions(options, taskId);
  const { signal, onProgress } = settings;
  signal?.throwIfAborted();

  const started = Date.now();
  const timeout = settings.timeout ?? target.defaultTimeout;
  const cadence = new Cadence(settings);
  let origin = target.submittedAt;
  let key = target.durationKey;
  let last: TaskResult | undefined;
  let polls = 0;
  let failures = 0;
  /** Queries in a row that could not connect, and the last query's error (the cause of a time-out). */
  let unreachable = 0;
  let unusable = false;
  let lastFailure: unknown;

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
  // Shared state goes through its port's guard: one that throws, hangs or answers junk is no
  // answer (a warning, once), the wait goes on by itself, and its stop still ends it at once.
  const log = target.logger;
  const eventsPort = guardOf(events, 'the task events', log);
  const leasesPort = leases && guardOf(leases, 'the task leases', log);
  const journal = target.journal;
  const journalPort = journal && guardOf(journal, 'the journal of submissions', log);
  const shared = { timeoutMs: PORT_TIMEOUT_MS, signal: stop.signal, abort: 'fallback' } as const;
  const listener = (task: TaskResult) => {
    if (isTerminalStatus(task.status)) interrupt({ kind: 'event', task });
  };
  const unsubscribe = eventsPort.call(() => events.subscribe(taskId, listener), {
    ...shared,
    accept: (answer) => typeof answer === 'function',
    fallback: () => () => {},
  });

  // A task this wait saw end by its own query: news for the others (other waits, other
  // instances), published once the wait is over.
  let news: TaskResult | undefined;
  /** The task's end was seen (its journal entry cleared). */
  let ended = false;
  let stream: TaskEventStream | undefined;
  /** A claim of the lease still on its way (to Redis): what it obtains is released too. */
  let claiming: Promise<unknown> | undefined;
  /** `hold`'s answer, followed while on its way: a thenable is read once, as a promise (its `then` may throw). */
  const followClaim = <T>(asked: T | PromiseLike<T>): T | Promise<T> => {
    if (!isThenable(asked)) return asked as T;
    const pending = Promise.resolve(asked);
    claiming = pending;
    const settled = () => {
      if (claiming === pending) claiming = undefined;
    };
    pending.then(settled, settled);
    return pending;
  };
  try {
    if (journalPort) journalPort.fire(() => journal?.adopt(taskId));
    // A task that already ended elsewhere (its news kept on a fleet) is not queried at all.
    const stored = events.latest ? await eventsPort.call(() => events.latest?.(taskId), { ...shared, accept: isStoredTask, fallback: () => undefined }) : undefined;
    if (stored && isTerminalStatus(stored.status)) interrupt({ kind: 'event', task: stored });
    const expected = () => (origin === undefined || key === undefined ? undefined : durations.expected(key, stop.signal));
    // Right away for a task of unknown age (a wait by id); else `initialDelay` after
    // submission, which is now already when `.wait()` is called late.
    let nextAt = origin === undefined ? started : Math.max(started, origin + cadence.firstQueryAge(await expected()));
    // Behind the app's proxy the task's events come on one stream; after two failures in a row
    // (or a proxy without the route) the wait polls through the proxy from then on.
    stream = target.streams && !target.streams.unsupported ? new TaskEventStream(target.streams, taskId, `${target.what ?? 'tasks.wait'}(${taskId})`, stop.signal) : undefined;

    for (;;) {
      let task: TaskResult | undefined;
      try {
        if (stream) {
          // After a failure the next read waits for its delay too: no loop runs again at once.
          if (failures > 0) await scheduler.wakeAt(nextAt, stop.signal);
          task = await stream.next();
          if (!task) {
            nextAt = Date.now() + stream.pollDelayMs;
            stream.close();
            stream = undefined;
            continue;
          }
        } else if (leases) {
          // On a fleet one instance polls a task and the others listen; a listener looks
          // again within the lease time, and takes over when the poller is gone.
          await scheduler.wakeAt(nextAt, stop.signal);
          // A lease that cannot be asked is held: this instance polls, as when Redis is down.
          if (!(await leasesPort?.call(() => followClaim((leases as TaskLeases).hold(taskId)), { ...shared, accept: (held) => typeof held === 'boolean', fallback: () => true }))) {
            // A store's own number: looked at again within a minute, whatever it says.
            nextAt = Date.now() + Math.min(Math.max(Number(leases.ttlMs) || 1_000, 100), 60_000);
            continue;
          }
        }
        if (!stream) {
          const release = await scheduler.querySlot(nextAt, stop.signal);
          try {
            polls++;
            const seen = await target.retrieve(stop.signal, span);
            span?.saw(seen);
            // A change of status its own query saw: news for whoever follows the task (a proxy's
            // event streams, on any instance of a fleet); an end is published once the wait is over.
            if (!isTerminalStatus(seen.status) && seen.status !== last?.status) eventsPort.fire(() => events.publish(seen));
            task = seen;
          } finally {
            release();
          }
        }
        failures = unreachable = 0;
        lastFailure = undefined;
      } catch (error) {
        if (!interruption) {
          if (!isTransientInWait(error)) {
            if (error instanceof OmniMediaError) error.taskId ??= taskId;
            throw error;
          }
          failures++;
          lastFailure = error;
          // A wrong port or host looks like a slow task, and an answer we cannot use is no
          // network blip: say so early, once per wait.
          unreachable = failedBeforeSending(error) ? unreachable + 1 : 0;
          if (unreachable === UNREACHABLE_WARNING_AFTER)
            target.logger?.warn(
              `wait(${taskId}): ${unreachable} queries in a row could not connect (${errorText(error)}): is baseURL right? The wait goes on until its deadline.`,
            );
          if (isUnusableAnswer(error) && !unusable) {
            unusable = true;
            target.logger?.warn(`wait(${taskId}): could not use the answer (${errorText(error)}); retried until the deadline`);
          }
          // Inside a wait even a long Retry-After is honoured: the deadline bounds it.
          const delay = transientDelay(error, failures);
          target.logger?.info(`wait(${taskId}): query failed (${errorText(error)}); next query in ${Math.round(delay)} ms`);
          nextAt = Date.now() + delay;
          continue;
        }
      }

      if (task && isTerminalStatus(task.status)) news = task;
      if (!news && interruption) {
        if (interruption.kind === 'abort') throw signal?.reason;
        if (interruption.kind === 'deadline') throw new WaitTimeoutError(taskId, timeout, task ?? last, lastFailure);
        task = interruption.task;
      }
      if (!task) continue;

      const now = Date.now();
      last = task;
      origin ??= originFromCreatedAt(task, now);
      key ??= task.normalized_model;
      onProgress?.(task, { elapsedMs: now - started, polls });
      if (isTerminalStatus(task.status)) {
        ended = true;
        // Shared state is a help, never a condition: a store that fails costs no result.
        if (isSuccessStatus(task.status)) durations.record(key, task);
        // Whoever publishes news of an end clears the entry (this wait, if its own query saw
        // it; a handler once its onTask returned): news heard clears nothing here. A clear
        // the journal missed is sent again when it answers.
        if (news) void journalPort?.keep(`journal:${taskId}`, () => journal?.clear(taskId));
      }
      yield task;

      if (isSuccessStatus(task.status)) return;
      if (isFailureStatus(task.status)) {
        throw new TaskFailedError(task);
      }
      // Unknown statuses (and pending, processing) keep the wait going.
      const age = origin === undefined ? now - started : now - origin;
      nextAt = now + cadence.nextGap(age, await expected());
    }
  } finally {
    stream?.close();
    // A subscribe that answered late answers its unsubscribe late: called then, never awaited.
    if (isThenable(unsubscribe)) void unsubscribe.then((stop) => firePort(stop));
    else firePort(unsubscribe);
    signal?.removeEventListener('abort', onAbort);
    if (news) eventsPort.fire(() => events.publish(news as TaskResult));
    // Ended without the result (a time-out, an abort, an error): this wait no longer holds the
    // task, and tasks.pending() lists it once no wait does.
    if (!ended) void journalPort?.keep(`journal:${taskId}`, () => journal?.release(taskId));
    if (leases) {
      const release = () => leasesPort?.fire(() => leases.release(taskId, ended));
      release();
      // A claim that lands after this release would hold a lease nobody gives back (other
      // instances' streams went silent for its 120 s): released again when it answers.
      if (claiming) claiming.then(release, () => {});
    }
    // Cancels the deadline wake-up and any sleep: nothing of this wait stays scheduled.
    stop.abort('done');
  }
}

/** Poll until the task completes; see `observeTask` for how it ends. */
export function waitForTask(target: PollTarget, options?: WaitOptions): Promise<TaskResult> {
  const span = target.telemetry?.call('tasks.wait');
  return span ? span.run(() => lastOf(observeTask(target, options, span))) : lastOf(observeTask(target, options));
}

/** The last task a wait yields: observeTask returns only after yielding a completed one. */
async function lastOf(tasks: AsyncIterable<TaskResult>): Promise<TaskResult> {
  let last: TaskResult | undefined;
  for await (const task of tasks) last = task;
  return last as TaskResult;
}

/** What makes one observation of a task a change: its status and its attempts. */
function changeKey(task: TaskResult): string {
  const attempts = (task.attempts ?? []).map((a) => `${a.attempt_no ?? ''}:${a.status ?? ''}:${a.fail_reason ?? ''}`);
  return JSON.stringify([task.status, task.attempt_count ?? null, attempts]);
}

/** Yield each observed change of the task (status, attempts) until it ends. */
export async function* watchTask(target: PollTarget, options?: WaitOptions): AsyncGenerator<TaskResult, void, undefined> {
  let seen: string | undefined;
  for await (const task of observeTask(target, options)) {
    const key = changeKey(task);
    if (key === seen) continue;
    seen = key;
    yield task;
  }
}
