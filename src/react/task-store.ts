/**
 * What `useTask` reads (DESIGN 12): one store per client, one watch per task id shared by every
 * component that follows it (`tasks.watch`: behind the app's proxy, its event stream), started
 * by the first subscriber and stopped once the last one is gone. A state is replaced, never
 * changed, so `useSyncExternalStore` sees each change and nothing else.
 */
import { OmniMediaError, TaskFailedError, isTerminalStatus, type TaskResult, type TaskStatus, type WaitOptions } from 'omnimedia/tasks';

/**
 * What `useTask` returns.
 *
 * @example
 * ```ts
 * const { task, status, done, error }: TaskState = useTask(taskId);
 * ```
 */
export interface TaskState {
  /** The latest task seen; `undefined` before the first one. */
  task: TaskResult | undefined;
  /**
   * The task's status; `'idle'` without a task, `'submitting'` before a submission answered,
   * `'loading'` for a task id before its first event.
   */
  status: TaskStatus | 'idle' | 'submitting' | 'loading';
  /** `true` once the task ended (completed, or failed: then `error` is its `TaskFailedError`). */
  done: boolean;
  /** What went wrong: the failed task's `TaskFailedError`, a submission's or the wait's error. */
  error: OmniMediaError | undefined;
}

/**
 * A client `useTask` follows tasks with: an `OmniMedia` (its `tasks.watch`) or a `TasksClient`
 * (its `watch`), made with `proxyURL` in a page.
 *
 * @example
 * ```ts
 * const client: TaskClient = new TasksClient({ proxyURL: '/api/omnimedia' });
 * ```
 */
export type TaskClient =
  | {
      /** An `OmniMedia`'s tasks: their `watch`. */
      tasks: { watch(taskId: string, options?: WaitOptions): AsyncIterable<TaskResult> };
    }
  | {
      /** A `TasksClient`'s `watch`: each change of the task, the end last. */
      watch(taskId: string, options?: WaitOptions): AsyncIterable<TaskResult>;
    };

/** The state of no task. */
export const IDLE: TaskState = Object.freeze({ task: undefined, status: 'idle', done: false, error: undefined });
const LOADING: TaskState = Object.freeze({ task: undefined, status: 'loading', done: false, error: undefined });
const SUBMITTING: TaskState = Object.freeze({ task: undefined, status: 'submitting', done: false, error: undefined });

/** What the hook subscribes to: one task's state. */
export interface TaskSource {
  subscribe: (onChange: () => void) => () => void;
  get: () => TaskState;
}

const asError = (error: unknown): OmniMediaError => (error instanceof OmniMediaError ? error : new OmniMediaError(String(error)));

/** One task's watch and its subscribers. */
class Watched implements TaskSource {
  #state = LOADING;
  readonly #listeners = new Set<() => void>();
  #stop: AbortController | undefined;
  readonly #start: (signal: AbortSignal, set: (state: TaskState) => void) => void;
  readonly #forget: () => void;

  constructor(start: (signal: AbortSignal, set: (state: TaskState) => void) => void, forget: () => void) {
    this.#start = start;
    this.#forget = forget;
  }

  get = (): TaskState => this.#state;

  subscribe = (onChange: () => void): (() => void) => {
    this.#listeners.add(onChange);
    if (!this.#stop) {
      const stop = (this.#stop = new AbortController());
      this.#start(stop.signal, (state) => {
        if (stop.signal.aborted) return;
        this.#state = state;
        for (const listener of [...this.#listeners]) listener();
      });
    }
    return () => {
      this.#listeners.delete(onChange);
      // A tick later: React may unsubscribe and subscribe again at once (StrictMode, a re-render
      // with a new callback); the watch goes on then, and stops only when nobody came back.
      setTimeout(() => {
        if (this.#listeners.size > 0 || !this.#stop) return;
        this.#stop.abort();
        this.#stop = undefined;
        this.#forget();
      }, 0);
    };
  };
}

/** Follow a task with a client: each change of status, the end, or the wait's error. */
function watchTask(client: TaskClient, taskId: string, signal: AbortSignal, set: (state: TaskState) => void): void {
  const tasks = 'tasks' in client ? client.tasks : client;
  void (async () => {
    let last: TaskResult | undefined;
    try {
      for await (const task of tasks.watch(taskId, { signal })) {
        last = task;
        set({ task, status: task.status, done: isTerminalStatus(task.status), error: undefined });
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof TaskFailedError) set({ task: error.task, status: error.task.status, done: true, error });
      else set({ task: last, status: last?.status ?? 'loading', done: false, error: asError(error) });
    }
  })();
}

const stores = new WeakMap<object, Map<string, Watched>>();
const submissions = new WeakMap<object, TaskSource>();

/** The shared watch of `taskId` on `client`. */
export function taskSource(client: TaskClient, taskId: string): TaskSource {
  let byId = stores.get(client);
  if (!byId) stores.set(client, (byId = new Map()));
  let watched = byId.get(taskId);
  if (!watched) {
    const made: Watched = new Watched(
      (signal, set) => watchTask(client, taskId, signal, set),
      () => {
        if (byId.get(taskId) === made) byId.delete(taskId);
      },
    );
    byId.set(taskId, (watched = made));
  }
  return watched;
}

/** A submission's promise (`TaskPromise`): `submitting` until it answers, then its task's shared watch. */
export function submissionSource(client: TaskClient, submission: PromiseLike<{ task_id: string }>): TaskSource {
  const known = submissions.get(submission);
  if (known) return known;
  let state = SUBMITTING;
  let inner: TaskSource | undefined;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  let settled = false;
  const source: TaskSource = {
    get: () => (inner ? inner.get() : state),
    subscribe: (onChange) => {
      listeners.add(onChange);
      let unsubscribe: (() => void) | undefined = inner?.subscribe(onChange);
      if (!settled) {
        settled = true;
        Promise.resolve(submission).then(
          ({ task_id }) => {
            inner = taskSource(client, task_id);
            changed();
          },
          (error: unknown) => {
            state = { ...SUBMITTING, error: asError(error) };
            changed();
          },
        );
      }
      const follow = () => {
        if (inner && !unsubscribe && listeners.has(onChange)) unsubscribe = inner.subscribe(onChange);
      };
      listeners.add(follow);
      return () => {
        listeners.delete(onChange);
        listeners.delete(follow);
        unsubscribe?.();
      };
    },
  };
  submissions.set(submission, source);
  return source;
}
