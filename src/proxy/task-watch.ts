/**
 * The proxy's watches of tasks for the events route: one per task id in the process, shared by
 * every stream that follows the task, started by the first stream and stopped when the last one
 * leaves. A watch is the client's own wait (waiting/poller.ts: the cadence of `.wait()`, the
 * scheduler's budget, learned durations, and on a fleet the lease and the news of the other
 * instances) whose task query is the proxy's own (`forward`: the answer exactly as the proxy's
 * task read gives it, the key removed). A stream never queries the service itself.
 */
import type { TaskEventBus, TaskLeases } from '../coordination/ports.ts';
import { APIError } from '../errors.ts';
import type { Redactor } from '../internal/redact.ts';
import { firePort, guardOf, PORT_TIMEOUT_MS, type PortGuard } from '../internal/port-call.ts';
import { isThenable } from '../internal/thenable.ts';
import { TASK_ANSWER } from '../schemas/answers.ts';
import type { TaskResult } from '../schemas/task.ts';
import { rawAnswer } from '../schemas/tolerant.ts';
import { apiErrorFromResponse } from '../transport/error-mapping.ts';
import { parseResponse } from '../validation/answers.ts';
import type { TaskDurations } from '../waiting/durations.ts';
import { isStoredTask, observeTask, type PollTarget } from '../waiting/poller.ts';
import type { PollScheduler } from '../waiting/scheduler.ts';
import { isTerminalStatus } from '../waiting/status.ts';
import type { LevelledLogger } from '../internal/logger.ts';
import { ProxyRefusal } from './answers.ts';
import type { UpstreamAnswer } from './upstream.ts';

/** A task as a stream sends it: the parsed task, and its JSON text as the proxy's task read answers it. */
export interface WatchedTask {
  task: TaskResult;
  text: string;
}

/** What a stream hears of its task's watch. */
export interface WatchListener {
  /** The task, at first when known, then at each change of status; a terminal one is the last. */
  task(item: WatchedTask): void;
  /** The watch ended with an error the page must see (an unknown task: 404): its status and the proxy's error body. */
  error(status: number, text: string): void;
  /** The watch stopped without a terminal task (its deadline): the stream ends, the page opens another. */
  end(): void;
}

/** What the watches run on. */
export interface WatchPorts {
  /** One read of the task through the proxy (`forward`): the safe answer, or a `ProxyRefusal`. */
  read(taskId: string, signal: AbortSignal): Promise<UpstreamAnswer>;
  scheduler: PollScheduler;
  events: TaskEventBus;
  durations: TaskDurations;
  leases?: TaskLeases | undefined;
  /** The proxy's redactor: the key, in every form, removed from a task heard on the bus before a page gets it. */
  redactor: () => Redactor;
  /**
   * Callbacks end the proxy's tasks (its `callbackURL` is set, and a `coordination` carries them
   * from the app's callback handler): after its first read a watch queries only every 30 s, a
   * fallback for a callback that never comes.
   */
  callbacks: boolean;
  logger: LevelledLogger;
}

/** How long a watch lives at most, ms: a task's result is kept a day by the service. */
const WATCH_TIMEOUT_MS = 24 * 3_600_000;
/** On a fleet, with nothing known of the task: how long to wait for another instance's news before one read of our own, ms. */
const START_READ_AFTER_MS = 1_000;
/** The fallback cadence when callbacks end the tasks: a query every 30 s at most. */
const CALLBACK_FALLBACK = { initialDelay: 0, interval: 30_000, maxInterval: 30_000, learn: false } as const;

/** Why a watch stopped: its own abort (the last stream left). */
const STOPPED = 'stopped';

/**
 * Where a watch stands: nothing heard of its task yet; the last task heard (a stream that joins
 * gets it at once); or ended (a terminal task, an error the page must see, the watch's deadline,
 * or the last stream left), after which nothing more is sent and its reads are aborted. Moved by
 * `#move` alone.
 */
type WatchState = { phase: 'unknown' } | { phase: 'known'; latest: WatchedTask } | { phase: 'ended'; latest: WatchedTask | undefined };

/**
 * What moves a watch: a task heard by any of its three read paths (the start read, the poller,
 * the fleet's bus), the poller's end (an error the page must see, or the deadline), the last
 * stream leaving.
 */
type WatchEvent =
  | { kind: 'heard'; task: TaskResult }
  | { kind: 'failed'; status: number; text: string }
  | { kind: 'deadline' }
  | { kind: 'left' };

/** One task's watch and the streams that follow it. */
class Watch {
  readonly #taskId: string;
  readonly #ports: WatchPorts;
  readonly #listeners = new Set<WatchListener>();
  readonly #stop = new AbortController();
  /** The texts of the tasks our own reads returned (what the bus hands back is the same object). */
  readonly #texts = new WeakMap<TaskResult, string>();
  #state: WatchState = { phase: 'unknown' };
  /** Reads of the task on their way (the poller's, the start's): the start read is skipped while one is. */
  #reading = 0;
  readonly #onEnd: () => void;

  constructor(taskId: string, ports: WatchPorts, onEnd: () => void) {
    this.#taskId = taskId;
    this.#ports = ports;
    this.#onEnd = onEnd;
  }

  get latest(): WatchedTask | undefined {
    return this.#state.phase === 'unknown' ? undefined : this.#state.latest;
  }

  add(listener: WatchListener): void {
    this.#listeners.add(listener);
    const { latest } = this;
    if (latest) listener.task(latest);
  }

  /** `true` when nobody follows the task any more (the watch was stopped). */
  remove(listener: WatchListener): boolean {
    this.#listeners.delete(listener);
    if (this.#listeners.size > 0) return false;
    this.#move({ kind: 'left' });
    return true;
  }

  /** The fleet's bus, through its port's guard (one warning when it fails; a watch goes on without it). */
  get #bus(): PortGuard {
    return guardOf(this.#ports.events, 'the task events', this.#ports.logger);
  }

  start(): void {
    const { events } = this.#ports;
    const bounds = { timeoutMs: PORT_TIMEOUT_MS, signal: this.#stop.signal, abort: 'fallback' } as const;
    const unsubscribe = this.#bus.call(() => events.subscribe(this.#taskId, (task) => this.#move({ kind: 'heard', task })), {
      ...bounds,
      accept: (answer) => typeof answer === 'function',
      fallback: () => () => {},
    });
    // A subscribe that answered late answers its unsubscribe late: called then.
    const stop = () => (isThenable(unsubscribe) ? void unsubscribe.then((off) => firePort(off)) : firePort(unsubscribe));
    this.#stop.signal.addEventListener('abort', stop, { once: true });
    void this.#run();
  }

  async #run(): Promise<void> {
    const { events, leases } = this.#ports;
    const signal = this.#stop.signal;
    try {
      // What the fleet already knows (another instance's watch, a callback): at once, no read.
      const known = await this.#known();
      if (signal.aborted) return;
      if (known) this.#move({ kind: 'heard', task: known });
      // On a fleet the lease holder reads: wait a moment for its news, then read once ourselves.
      if (leases && this.#state.phase === 'unknown') setTimeout(() => void this.#startRead(), START_READ_AFTER_MS);
      // With callbacks a task the fleet knows is not read at the start: its first query is the
      // fallback's, 30 s on (DESIGN 12: one read at the start, when nothing is known).
      const quiet = this.#ports.callbacks && known !== undefined;
      const target: PollTarget = {
        taskId: this.#taskId,
        submittedAt: quiet ? Date.now() : undefined,
        defaultTimeout: WATCH_TIMEOUT_MS,
        what: 'task events',
        retrieve: (querySignal) => this.#read(querySignal),
        scheduler: this.#ports.scheduler,
        events,
        durations: this.#ports.durations,
        leases,
        logger: this.#ports.logger,
      };
      const options = { signal, ...(this.#ports.callbacks ? { ...CALLBACK_FALLBACK, initialDelay: quiet ? CALLBACK_FALLBACK.interval : 0 } : {}) };
      for await (const task of observeTask(target, options)) {
        this.#move({ kind: 'heard', task });
        if (this.#state.phase === 'ended') return;
      }
    } catch (error) {
      if (signal.aborted) return;
      // The service does not know the task (or refused the read for good): the page's error.
      // Else the watch's deadline: the streams end, and a page that still follows it starts another.
      this.#move(error instanceof APIError && error.status !== undefined && error.status >= 400 ? { kind: 'failed', status: error.status, text: errorText(error) } : { kind: 'deadline' });
    }
  }

  /** One read, outside the lease, when nothing came from the fleet within `START_READ_AFTER_MS`. */
  async #startRead(): Promise<void> {
    // The watch's own query (it holds the lease) is on its way: that read is the one.
    if (this.#state.phase !== 'unknown' || this.#reading > 0) return;
    let release: (() => void) | undefined;
    try {
      // The fleet may know it by now (the holder's news, published before our subscription listened).
      const known = await this.#known();
      if (known) this.#move({ kind: 'heard', task: known });
      release = await this.#ports.scheduler.querySlot(Date.now(), this.#stop.signal);
      if (this.#state.phase !== 'unknown' || this.#reading > 0) return;
      const task = await this.#read(this.#stop.signal);
      // News for the other instances' streams too.
      this.#bus.fire(() => this.#ports.events.publish(task));
      this.#move({ kind: 'heard', task });
    } catch {
      // The watch's own queries go on: this read was only a head start.
    } finally {
      release?.();
    }
  }

  /** What the fleet knows of the task now (the last status any instance published), if anything: no read. */
  async #known(): Promise<TaskResult | undefined> {
    const { events } = this.#ports;
    if (!events.current) return undefined;
    return this.#bus.call(() => events.current?.(this.#taskId), { timeoutMs: PORT_TIMEOUT_MS, signal: this.#stop.signal, abort: 'fallback', accept: isStoredTask, fallback: () => undefined });
  }

  /** One query of the task for the poller: the proxy's read, its answer checked as the client checks one. */
  async #read(signal: AbortSignal): Promise<TaskResult> {
    let answer: UpstreamAnswer;
    this.#reading++;
    try {
      answer = await this.#ports.read(this.#taskId, signal);
    } catch (error) {
      if (!(error instanceof ProxyRefusal)) throw error;
      // The proxy's own 502/503/504: transient for the wait, which retries them.
      throw new APIError(`task events(${this.#taskId}): ${error.message}`, { status: error.status, taskId: this.#taskId, body: { error: { code: error.code, message: error.message } } });
    } finally {
      this.#reading--;
    }
    const what = `task events(${this.#taskId})`;
    if (answer.status < 200 || answer.status >= 300) throw apiErrorFromResponse(answer.status, '', new Headers(answer.headers), answer.text, { redactor: this.#ports.redactor(), what, taskId: this.#taskId });
    const task = parseResponse<TaskResult>(TASK_ANSWER, answer.body, what, { taskId: this.#taskId });
    if (task.task_id !== this.#taskId) throw new APIError(`${what}: the service answered with another task, ${task.task_id}`, { status: answer.status, taskId: this.#taskId });
    this.#texts.set(task, answer.text);
    return task;
  }

  /**
   * The one place a watch's state moves. A task heard (from any read path) becomes the latest
   * and goes to every stream when its status changed; a terminal one ends the watch. The
   * poller's failure goes to every stream (its error, or the end of the deadline) and ends it;
   * so does the last stream leaving. Ending aborts the watch's reads and forgets it (`onEnd`).
   * Nothing moves an ended watch.
   */
  #move(event: WatchEvent): void {
    const from = this.#state;
    if (from.phase === 'ended') return;
    const latest = from.phase === 'known' ? from.latest : undefined;
    const listeners = [...this.#listeners];
    switch (event.kind) {
      case 'heard': {
        const { task } = event;
        if (task.task_id !== this.#taskId) return;
        const item = { task, text: this.#texts.get(task) ?? this.#textOf(task) };
        // A status heard again (a poll, the bus echoing our own news) is kept, and sent to no one.
        if (task.status === latest?.task.status) {
          this.#state = { phase: 'known', latest: item };
          return;
        }
        const end = isTerminalStatus(task.status);
        this.#state = end ? { phase: 'ended', latest: item } : { phase: 'known', latest: item };
        for (const listener of listeners) listener.task(item);
        if (!end) return;
        break;
      }
      case 'failed':
      case 'deadline':
        this.#state = { phase: 'ended', latest };
        for (const listener of listeners) {
          if (event.kind === 'failed') listener.error(event.status, event.text);
          else listener.end();
        }
        break;
      case 'left':
        this.#state = { phase: 'ended', latest };
    }
    this.#stop.abort(STOPPED);
    this.#onEnd();
  }

  /** A task heard on the bus (a callback's, another instance's) as JSON, the key removed from every string. */
  #textOf(task: TaskResult): string {
    const raw = rawAnswer(task) ?? task;
    return JSON.stringify(this.#ports.redactor().data(raw));
  }
}

/** The error body of a failed read, as the proxy's task read would have answered it. */
function errorText(error: APIError): string {
  return JSON.stringify(error.body ?? { error: { code: 'upstream_error', message: error.message } });
}

/** Every watch of one proxy. */
export class TaskWatches {
  readonly #ports: WatchPorts;
  readonly #watches = new Map<string, Watch>();

  constructor(ports: WatchPorts) {
    this.#ports = ports;
  }

  /** Tasks watched now (for tests and leak checks). */
  get size(): number {
    return this.#watches.size;
  }

  /**
   * Follow `taskId`: the listener hears the latest task at once when the watch knows it, then
   * each change. Returns the function that stops following (the last one stops the watch).
   */
  follow(taskId: string, listener: WatchListener): () => void {
    let watch = this.#watches.get(taskId);
    if (!watch) {
      const created: Watch = new Watch(taskId, this.#ports, () => {
        if (this.#watches.get(taskId) === created) this.#watches.delete(taskId);
      });
      this.#watches.set(taskId, (watch = created));
      watch.start();
    }
    const current = watch;
    current.add(listener);
    let following = true;
    return () => {
      if (!following) return;
      following = false;
      current.remove(listener);
    };
  }
}
