/**
 * `omnimedia/react`: `useTask` and `<OmniMediaProvider>` (DESIGN 12). A component follows a task
 * by its id, its `TaskPromise` or its submission; components that follow the same id share one
 * watch (behind the app's proxy, one event stream), which stops when the last one unmounts. On
 * the server it renders the idle state and starts nothing. `react` >= 18 is an optional peer;
 * no other entry loads React. See the guide [Live pages](https://github.com/omnimedia/omnimedia/blob/main/docs/live-pages.md).
 *
 * @module omnimedia/react
 */
import { createContext, createElement, useContext, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { ValidationError } from 'omnimedia/tasks';
import { IDLE, submissionSource, taskSource, type TaskClient, type TaskSource, type TaskState } from './task-store.ts';

export type { TaskClient, TaskState } from './task-store.ts';

const ClientContext = createContext<TaskClient | undefined>(undefined);

/**
 * Gives `useTask` its client in the components below.
 *
 * @example
 * ```ts
 * import { createElement } from 'react';
 * import { OmniMedia } from 'omnimedia';
 * import { OmniMediaProvider } from 'omnimedia/react';
 *
 * const client = new OmniMedia({ proxyURL: '/api/omnimedia' });
 * export const Root = ({ children }: { children: React.ReactNode }) => createElement(OmniMediaProvider, { client }, children);
 * ```
 */
export function OmniMediaProvider(props: { client: TaskClient; children?: ReactNode }): ReactNode {
  return createElement(ClientContext.Provider, { value: props.client }, props.children);
}

/**
 * Options of `useTask`.
 *
 * @example
 * ```ts
 * const state = useTask(taskId, { client } satisfies UseTaskOptions);
 * ```
 */
export interface UseTaskOptions {
  /** The client to follow the task with, instead of the `<OmniMediaProvider>`'s. */
  client?: TaskClient;
}

/**
 * What `useTask` follows: a task id, a `TaskPromise` or a submission (`{ task_id }`), or nothing.
 *
 * @example
 * ```ts
 * const followed: TaskInput = submitted ? { task_id: submitted.task_id } : undefined; // nothing yet: idle
 * ```
 */
export type TaskInput =
  | string
  | PromiseLike<{ task_id: string }>
  | {
      /** The submitted task's id. */
      task_id: string;
    }
  | undefined;

const idle: TaskSource = { get: () => IDLE, subscribe: () => () => {} };
const serverSnapshot = () => IDLE;

/**
 * Follow a task from a component: `{ task, status, done, error }`, updated at each change of
 * status and at its end. Components that follow the same task id share one watch; the last one
 * to unmount stops it. After a reload, `useTask(idFromTheURL)` resumes. On the server it
 * renders `status: 'idle'` and starts nothing.
 *
 * @example
 * ```ts
 * import { useTask } from 'omnimedia/react';
 *
 * function Progress({ taskId }: { taskId: string }) {
 *   const { status, task, error } = useTask(taskId);
 *   return error ? `failed: ${error.message}` : status === 'completed' ? `done: ${task?.data?.[0]?.url}` : status;
 * }
 * ```
 */
export function useTask(task: TaskInput, options: UseTaskOptions = {}): TaskState {
  const provided = useContext(ClientContext);
  const client = options.client ?? provided;
  // A submission made again at each render is the same task: keyed by its id.
  const key = typeof task === 'object' && task !== null && !('then' in task) ? task.task_id : task;
  const source = useMemo((): TaskSource => {
    if (key === undefined) return idle;
    if (!client)
      throw new ValidationError([{ path: 'client', message: 'is required: wrap the component in <OmniMediaProvider client={...}> or pass useTask(task, { client })' }], 'useTask');
    return typeof key === 'string' ? taskSource(client, key) : submissionSource(client, key);
  }, [client, key]);
  return useSyncExternalStore(source.subscribe, source.get, serverSnapshot);
}
