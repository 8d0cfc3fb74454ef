import { MemoryDedupeStore } from '../coordination/memory.ts';
import type { CallbackDedupeStore, DedupeClaim } from '../coordination/ports.ts';
import { BoundedMap } from '../internal/bounded-map.ts';
import type { Liveness } from './liveness.ts';
import type { Outage } from './outage.ts';
import { CLAIM, RELEASE, RENEW, TAKE_OVER } from './scripts.ts';

const DAY_MS = 24 * 3_600_000;
/** Writes made while Redis could not be reached, kept for when it answers (the oldest go first past this). */
const MAX_BACKLOG = 10_000;

/** What the callback claims need of their coordination. */
export interface DedupePorts {
  command(...args: (string | number)[]): Promise<unknown>;
  outage: Outage;
  liveness: Liveness;
  /** The claim key of a delivery key. */
  key(deliveryKey: string): string;
  instanceId: string;
  /** How long a claim in progress outlives its holder's last heartbeat, in ms (the lease time). */
  leaseMs: number;
}

/**
 * Callback dedupe on Redis: one claim key per delivery. In progress, it names its instance and
 * lives `leaseMs` past that instance's last heartbeat (each beat renews the claims it holds), so
 * a claim whose holder died or lost track of it lapses within the lease time, never a day; done,
 * it says `done` for a day. A claim whose instance died is also taken over by the next delivery.
 * A release or a "done" that meets an outage goes to the per-process fallback and is kept, and
 * written to Redis at the first heartbeat that finds it back: a short stall never leaves a claim
 * stuck in progress.
 */
export class RedisDedupeStore implements CallbackDedupeStore {
  readonly #ports: DedupePorts;
  readonly #fallback = new MemoryDedupeStore();
  /** Deliveries this instance's handlers run `onTask` for now: a second one to it is in progress without asking Redis. */
  readonly #handling = new Set<string>();
  /** Releases and "done"s Redis has not had yet, by delivery key. */
  readonly #backlog = new BoundedMap<string, 'release' | 'done'>(MAX_BACKLOG);

  constructor(ports: DedupePorts) {
    this.#ports = ports;
  }

  async claim(key: string): Promise<DedupeClaim> {
    if (this.#handling.has(key)) return 'in_progress';
    const claim = await this.#ports.outage.run(
      () => this.#claim(this.#ports.key(key)),
      () => this.#fallback.claim(key),
    );
    if (claim === true) {
      this.#handling.add(key);
      // Claimed anew (Redis said it was this instance's still): an older write of it must not undo this one.
      this.#backlog.delete(key);
    }
    return claim;
  }

  complete(key: string): Promise<void> {
    return this.#write(key, 'done');
  }

  release(key: string): Promise<void> {
    return this.#write(key, 'release');
  }

  /** At each heartbeat (Redis up): renew the claims in progress here, and send the writes Redis missed. */
  beat(): void {
    const { outage, command, key, instanceId, leaseMs } = this.#ports;
    for (const handling of this.#handling) outage.fire(() => command('EVAL', RENEW, 1, key(handling), instanceId, leaseMs));
    for (const [pending, write] of [...this.#backlog.entries()])
      outage.fire(async () => {
        await this.#send(pending, write);
        if (this.#backlog.get(pending) === write) this.#backlog.delete(pending);
      });
  }

  /** Writes Redis has not had yet (for tests and leak checks). */
  get backlog(): number {
    return this.#backlog.size;
  }

  #write(key: string, write: 'release' | 'done'): Promise<void> {
    this.#handling.delete(key);
    this.#backlog.delete(key);
    return this.#ports.outage.run(
      () => this.#send(key, write),
      () => {
        if (write === 'done') this.#fallback.complete(key);
        else this.#fallback.release(key);
        this.#backlog.set(key, write);
      },
    );
  }

  async #send(key: string, write: 'release' | 'done'): Promise<void> {
    const { command, instanceId } = this.#ports;
    const claimKey = this.#ports.key(key);
    await (write === 'done' ? command('SET', claimKey, 'done', 'PX', DAY_MS) : command('EVAL', RELEASE, 1, claimKey, instanceId));
  }

  /** A claim names its instance while `onTask` runs, then says `done`; one whose instance died is taken over. */
  async #claim(key: string): Promise<DedupeClaim> {
    const { command, liveness, instanceId, leaseMs } = this.#ports;
    await liveness.started;
    const answer = await command('EVAL', CLAIM, 1, key, instanceId, leaseMs);
    if (typeof answer !== 'string') return Number(answer) === 1;
    if (await liveness.alive(answer)) return 'in_progress';
    return Number(await command('EVAL', TAKE_OVER, 1, key, answer, instanceId, leaseMs)) === 1 ? true : 'in_progress';
  }
}
