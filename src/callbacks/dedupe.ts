import { BoundedMap } from '../internal/bounded-map.ts';

/**
 * Where a callback handler records the deliveries it has handled, so that a repeated delivery
 * of the same task and status runs `onTask` once. The default keeps keys in memory (one
 * process); give your own (Redis `SET key 1 NX EX 86400`, a unique index in SQL...) to dedupe
 * across several instances.
 *
 * @example
 * ```ts
 * const store: CallbackDedupeStore = {
 *   claim: async (key) => (await redis.set(`cb:${key}`, '1', { NX: true, EX: 86_400 })) === 'OK',
 *   release: async (key) => void (await redis.del(`cb:${key}`)),
 * };
 * const handle = client.callbacks.handler(onTask, { dedupe: store });
 * ```
 */
export interface CallbackDedupeStore {
  /** Record `key`; `true` if it was not there (handle this delivery), `false` if it was (a repeat). */
  claim(key: string): boolean | Promise<boolean>;
  /** Forget `key`: `onTask` failed, so a redelivery must run it again. */
  release(key: string): void | Promise<void>;
}

export const DEFAULT_DEDUPE_MAX_ENTRIES = 10_000;

/**
 * Keys in memory, the oldest dropped past `maxEntries`, so a long-running server stays bounded.
 *
 * @example
 * ```ts
 * const handle = client.callbacks.handler(onTask, { dedupe: new MemoryDedupeStore(50_000) });
 * ```
 */
export class MemoryDedupeStore implements CallbackDedupeStore {
  readonly #keys: BoundedMap<string, true>;

  constructor(maxEntries = DEFAULT_DEDUPE_MAX_ENTRIES) {
    this.#keys = new BoundedMap(maxEntries);
  }

  claim(key: string): boolean {
    if (this.#keys.has(key)) return false;
    this.#keys.set(key, true);
    return true;
  }

  release(key: string): void {
    this.#keys.delete(key);
  }

  get size(): number {
    return this.#keys.size;
  }
}

/** The key of one delivery: the same task in the same status is the same news. */
export function deliveryKey(task: { task_id: string; status: string }): string {
  return `${task.task_id}\u0000${task.status}`;
}
