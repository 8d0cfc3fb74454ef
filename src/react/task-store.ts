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
   * The task's status; `'idle'` without a task (and after a refused submission, with its
   * `error`), `'submitting'` before a submission answered, `'loading'` for a task id before its
   * first event.
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

/**
 * Where one task's shared watch is in its life; `#move` is the one place that changes it.
 * - `idle`: no subscriber (yet, or any more for a tick: React unsubscribes and subscribes again).
 * - `watching`: the watch runs for its subscribers; `stop` ends it.
 * - `gone`: stopped and out of the store: a later subscriber makes a new one.
 */
type WatchLife = { phase: 'idle' } | { phase: 'watching'; stop: AbortController } | { phase: 'gone' };

/** One task's watch and its subscribers, in the store while it has some (or had, a tick ago). */
class Watched {
  #state = LOADING;
  #life: WatchLife = { phase: 'idle' };
  readonly #listeners = new Set<() => void>();
  readonly #start: (signal: AbortSignal, set: (state: TaskState) => void) => void;
  readonly #forget: () => void;

  constructor(start: (signal: AbortSignal, set: (state: TaskState) => void) => void, forget: () => void) {
    this.#start = start;
    this.#forget = forget;
  }

  get state(): TaskState {
    return this.#state;
  }

  get gone(): boolean {
    return this.#life.phase === 'gone';
  }

  subscribe(onChange: () => void): () => void {
    this.#listeners.add(onChange);
    if (this.#life.phase === 'idle') {
      const stop = new AbortController();
      this.#move({ phase: 'watching', stop });
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
        if (this.#listeners.size === 0) this.#move({ phase: 'gone' });
      }, 0);
    };
  }

  /** The one place the watch's life changes: leaving `watching` stops it; `gone` leaves the store. */
  #move(next: WatchLife): void {
    const left = this.#life;
    if (left.phase === 'gone') return;
    this.#life = next;
    if (left.phase === 'watching' && next.phase !== 'watching') left.stop.abort();
    if (next.phase === 'gone') this.#forget();
  }
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

/**
 * The watches of every client, by task id: an entry exists only while a component subscribes
 * (React subscribes in the browser, never on the server), so server rendering keeps nothing,
 * and a component shown again (`<Activity>`) joins the watch its task has now.
 */
const stores = new WeakMap<object, Map<string, Watched>>();
const submissions = new WeakMap<object, TaskSource>();

/** The shared watch of `taskId` on `client`, made when the first subscriber comes. */
function acquire(client: TaskClient, taskId: string): Watched {
  let byId = stores.get(client);
  if (!byId) stores.set(client, (byId = new Map()));
  const known = byId.get(taskId);
  if (known && !known.gone) return known;
  const made: Watched = new Watched(
    (signal, set) => watchTask(client, taskId, signal, set),
    () => {
      if (byId.get(taskId) === made) byId.delete(taskId);
    },
  );
  byId.set(taskId, made);
  return made;
}

/**
 * `taskId` on `client` as the hook reads it: a handle that holds nothing. Its `get` reads the
 * task's shared watch when there is one; `subscribe` joins (or starts) the watch the task has
 * at that moment.
 */
export function taskSource(client: TaskClient, taskId: string): TaskSource {
  let joined: Watched | undefined;
  return {
    get: () => (joined && !joined.gone ? joined : stores.get(client)?.get(taskId))?.state ?? LOADING,
    subscribe: (onChange) => {
      const watched = (joined = acquire(client, taskId));
      return watched.subscribe(onChange);
    },
  };
}

/**
 * A submission's promise (`TaskPromise`): `submitting` until it answers, then its task's shared
 * watch; a refused one is `idle` with its error (no task was made). One handle per promise, held
 * weakly by it (a memo made again reads what it answered at once).
 */
export function submissionSource(client: TaskClient, submission: PromiseLike<{ task_id: string }>): TaskSource {
  const known = submissions.get(submission);
  if (known) return known;
  let state = SUBMITTING;
  let inner: TaskSource | undefined;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  let asked = false;
  const source: TaskSource = {
    get: () => (inner ? inner.get() : state),
    subscribe: (onChange) => {
      listeners.add(onChange);
      let unsubscribe: (() => void) | undefined = inner?.subscribe(onChange);
      if (!asked) {
        asked = true;
        Promise.resolve(submission).then(
          ({ task_id }) => {
            inner = taskSource(client, task_id);
            changed();
          },
          (error: unknown) => {
            state = { ...IDLE, error: asError(error) };
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
