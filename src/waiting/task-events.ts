import type { TaskResult } from '../schemas/task.ts';

type Listener = (task: TaskResult) => void;

/**
 * News of tasks within one client: a verified callback publishes the task, and a pending wait
 * for the same id hears it and ends at once instead of at its next poll.
 */
export class TaskEvents {
  readonly #listeners = new Map<string, Set<Listener>>();

  /** Listen for news of one task; returns the function that stops listening. */
  subscribe(taskId: string, listener: Listener): () => void {
    let set = this.#listeners.get(taskId);
    if (!set) this.#listeners.set(taskId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(taskId);
    };
  }

  /** Tell every listener of `task.task_id`. */
  publish(task: TaskResult): void {
    for (const listener of [...(this.#listeners.get(task.task_id) ?? [])]) listener(task);
  }

  /** How many tasks have listeners (for tests and leak checks). */
  get size(): number {
    return this.#listeners.size;
  }
}
