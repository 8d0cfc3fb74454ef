// Completion callbacks (spec 6): when a task with a callback_url ends, the mock POSTs the task
// result (identical to the task query) to the URL, for real. The spec does not describe
// delivery retries; the mock retries a failed delivery (no answer, or not 2xx) with growing
// delays (longer when the receiver's Retry-After asks, up to 60 s), so a receiver's retry
// handling can be tested.
import { now, schedule } from './clock.ts';
import { errorText } from '../internal/error-text.ts';

/**
 * One attempt to deliver one callback.
 *
 * @example
 * ```ts
 * await mock.callbacksSettled();
 * for (const d of mock.callbackDeliveries) console.log(d.taskId, d.attempt, d.ok ? d.status : d.error);
 * ```
 */
export interface CallbackDelivery {
  /** The task whose result was delivered. */
  taskId: string;
  /** The task's `callback_url`, where it was POSTed. */
  url: string;
  /** 1 for the first try. */
  attempt: number;
  /** ms since the epoch, by the mock's clock. */
  at: number;
  /** The receiver's status, when it answered. */
  status?: number;
  /** Why the request failed, when it got no answer. */
  error?: string;
  /** A 2xx answer. */
  ok: boolean;
}

/**
 * Waits between delivery tries: 1 s, 2 s, 4 s, 8 s, 16 s (six tries in all).
 *
 * @example
 * ```ts
 * const mock = createMockService({ callbackRetryDelays: DEFAULT_CALLBACK_RETRY_DELAYS.slice(0, 2) }); // three tries
 * ```
 */
export const DEFAULT_CALLBACK_RETRY_DELAYS: readonly number[] = [1000, 2000, 4000, 8000, 16000];
const DELIVERY_TIMEOUT_MS = 10_000;
/** Longest `Retry-After` of a receiver the mock honours. */
const MAX_RETRY_AFTER_MS = 60_000;

export interface CallbackSenderOptions {
  fetch: () => typeof globalThis.fetch;
  retryDelays: () => readonly number[];
  onDelivery: (delivery: CallbackDelivery) => void;
}

export class CallbackSender {
  readonly #options: CallbackSenderOptions;
  readonly #cancels = new Set<() => void>();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: CallbackSenderOptions) {
    this.#options = options;
  }

  /** POST `body` to `url`, retrying on failure; the first try happens now. */
  send(taskId: string, url: string, body: unknown): void {
    this.#try(taskId, url, JSON.stringify(body), 1);
  }

  #try(taskId: string, url: string, body: string, attempt: number): void {
    const delivery = (async () => {
      const record: CallbackDelivery = { taskId, url, attempt, at: now(), ok: false };
      let asked = 0;
      try {
        const response = await this.#options.fetch()(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'omnimedia-mock-callback/1' },
          body,
          signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        });
        record.status = response.status;
        record.ok = response.ok;
        // A receiver that asks for time (a delivery it is still handling) gets at least that.
        asked = Math.min(Number(response.headers.get('retry-after')) * 1000 || 0, MAX_RETRY_AFTER_MS);
        await response.body?.cancel().catch(() => undefined);
      } catch (error) {
        record.error = (error as { cause?: { code?: string } }).cause?.code ?? errorText(error);
      }
      this.#options.onDelivery(record);
      const delay = this.#options.retryDelays()[attempt - 1];
      if (!record.ok && delay !== undefined) {
        const cancel = schedule(() => {
          this.#cancels.delete(cancel);
          this.#try(taskId, url, body, attempt + 1);
        }, Math.max(delay, asked));
        this.#cancels.add(cancel);
      }
    })();
    this.#inFlight.add(delivery);
    void delivery.finally(() => this.#inFlight.delete(delivery));
  }

  /** Resolve when no delivery is in flight (retries still waiting on a timer do not count). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Drop every pending retry. */
  cancelAll(): void {
    for (const cancel of this.#cancels) cancel();
    this.#cancels.clear();
  }
}
