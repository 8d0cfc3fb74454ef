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

/** The code and message of each status the scenario controls answer (rateLimitNext, forceStatus...). */
export const CANNED_STATUSES = {
  401: { code: 'invalid_api_key', message: 'API key invalid or expired' },
  402: { code: 'insufficient_balance', message: 'insufficient balance' },
  403: { code: 'model_not_allowed', message: 'the key has no right to call this model' },
  429: { code: 'rate_limited', message: 'request rate or quota limit reached' },
  500: { code: 'internal_error', message: 'internal service error' },
  503: { code: 'no_provider_available', message: 'no provider currently available' },
} as const satisfies Record<number, { code: MockErrorCode; message: string }>;

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
