// Scenario controls: what the next requests and tasks should go through. Each control is
// consumed in order by the requests or tasks it applies to.
import type { MockErrorCode } from './responses.ts';

/**
 * Which endpoints an injected status applies to.
 *
 * @example
 * ```ts
 * mock.unavailableNext(2, { on: ['submissions'] }); // the next two POSTs get 503; task queries do not
 * ```
 */
export type EndpointGroup = 'submissions' | 'uploads' | 'tasks';

/** A status the mock answers instead of doing the work. */
export interface InjectedStatus {
  status: number;
  code: MockErrorCode;
  message: string;
  on: readonly EndpointGroup[];
  /** How many more requests it applies to; `Infinity` until cleared. */
  remaining: number;
  headers: Record<string, string>;
}

/** How the next task should go: some failed attempts first, or failure throughout. */
export interface TaskScript {
  failedAttempts: number;
  reason: string;
  /** `true`: every attempt fails and the task ends `failed`. */
  failTask: boolean;
}

export class Scenario {
  readonly injected: InjectedStatus[] = [];
  readonly taskScripts: TaskScript[] = [];

  inject(status: InjectedStatus): void {
    this.injected.push(status);
  }

  /** The injected status for a request to `group`, consuming one use of it. */
  take(group: EndpointGroup): InjectedStatus | undefined {
    const index = this.injected.findIndex((i) => i.remaining > 0 && i.on.includes(group));
    if (index === -1) return undefined;
    const found = this.injected[index]!;
    found.remaining -= 1;
    if (found.remaining <= 0) this.injected.splice(index, 1);
    return found;
  }

  /** The script of the next submitted task, if any. */
  nextTaskScript(): TaskScript | undefined {
    return this.taskScripts.shift();
  }

  clear(): void {
    this.injected.length = 0;
    this.taskScripts.length = 0;
  }
}
