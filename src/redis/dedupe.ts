import { MemoryDedupeStore } from '../coordination/memory.ts';
import type { CallbackDedupeStore, DedupeClaim } from '../coordination/ports.ts';
import type { Liveness } from './liveness.ts';
import type { Outage } from './outage.ts';
import { CLAIM, RELEASE, TAKE_OVER } from './scripts.ts';

const DAY_MS = 24 * 3_600_000;

/** What the callback claims need of their coordination. */
export interface DedupePorts {
  command(...args: (string | number)[]): Promise<unknown>;
  outage: Outage;
  liveness: Liveness;
  /** The claim key of a delivery key. */
  key(deliveryKey: string): string;
  instanceId: string;
}

/**
 * Callback dedupe on Redis: one claim key per delivery (a day), naming its instance while
 * `onTask` runs, then saying `done`; a claim whose instance died is taken over by the next
 * delivery, so a crash inside `onTask` never swallows a callback. Redis down: per process.
 */
export class RedisDedupeStore implements CallbackDedupeStore {
  readonly #ports: DedupePorts;
  readonly #fallback = new MemoryDedupeStore();
  /** Deliveries this instance's handlers run `onTask` for now: a second one to it is in progress without asking Redis. */
  readonly #handling = new Set<string>();

  constructor(ports: DedupePorts) {
    this.#ports = ports;
  }

  async claim(key: string): Promise<DedupeClaim> {
    if (this.#handling.has(key)) return 'in_progress';
    const claim = await this.#ports.outage.run(
      () => this.#claim(this.#ports.key(key)),
      () => this.#fallback.claim(key),
    );
    if (claim === true) this.#handling.add(key);
    return claim;
  }

  complete(key: string): Promise<void> {
    this.#handling.delete(key);
    return this.#ports.outage.run(
      async () => void (await this.#ports.command('SET', this.#ports.key(key), 'done', 'PX', DAY_MS)),
      () => this.#fallback.complete(key),
    );
  }

  release(key: string): Promise<void> {
    this.#handling.delete(key);
    return this.#ports.outage.run(
      async () => void (await this.#ports.command('EVAL', RELEASE, 1, this.#ports.key(key), this.#ports.instanceId)),
      () => this.#fallback.release(key),
    );
  }

  /** A claim names its instance while `onTask` runs, then says `done`; one whose instance died is taken over. */
  async #claim(key: string): Promise<DedupeClaim> {
    const { command, liveness, instanceId } = this.#ports;
    await liveness.started;
    const answer = await command('EVAL', CLAIM, 1, key, instanceId, DAY_MS);
    if (typeof answer !== 'string') return Number(answer) === 1;
    if (await liveness.alive(answer)) return 'in_progress';
    return Number(await command('EVAL', TAKE_OVER, 1, key, answer, instanceId, DAY_MS)) === 1 ? true : 'in_progress';
  }
}
