import type { TaskLeases } from '../coordination/ports.ts';
import type { Liveness } from './liveness.ts';
import type { Outage } from './outage.ts';
import { CLAIM, RELEASE, TAKE_OVER } from './scripts.ts';

/** What the leases need of their coordination. */
export interface LeasePorts {
  command(...args: (string | number)[]): Promise<unknown>;
  fire(op: () => Promise<unknown>): void;
  outage: Outage;
  liveness: Liveness;
  /** The lease key of a task. */
  key(taskId: string): string;
  instanceId: string;
  leaseMs: number;
  /** Tell the fleet a lease was given up while its task runs (waiters look again). */
  released(taskId: string): void;
}

// A lease lives as long as its holder (the live set); the key's own expiry only collects leases
// nobody released, and is renewed at a hold once half of it has passed.
const LEASE_KEY_TTL_MS = 120_000;
/**
 * A lease found held by a live instance is not asked about again while that instance lives
 * (the heartbeat says when it dies) and it does not give the lease up (it says so on the
 * channel), for this long at most: a missed message costs at most this much.
 */
const RECHECK_MS = 30_000;

/**
 * Who polls a task that several instances wait on, on Redis: one lease key per task (each in
 * its own slot), naming its holder. A holder that lived without a gap since it took the lease
 * keeps it without asking Redis; a waiter that found it held by a live instance listens for
 * news without asking again until that instance dies or gives it up. So a lease costs a
 * script when taken and a `DEL` when its task ended, not a command per look.
 */
export class RedisLeases implements TaskLeases {
  readonly ttlMs: number;
  readonly #ports: LeasePorts;
  /** Leases held: task id to when Redis last renewed the key. */
  readonly #held = new Map<string, number>();
  /** Leases another live instance holds: task id to its holder and when that was seen. */
  readonly #watched = new Map<string, { holder: string; at: number }>();
  /** Leases given up whose release has not reached Redis yet (it was down): sent again at each heartbeat. */
  readonly #unreleased = new Set<string>();

  constructor(ports: LeasePorts) {
    this.#ports = ports;
    this.ttlMs = ports.leaseMs;
  }

  hold(taskId: string): Promise<boolean> {
    const { liveness } = this.#ports;
    const renewed = this.#held.get(taskId);
    if (renewed !== undefined && liveness.continuous && Date.now() - renewed < LEASE_KEY_TTL_MS / 2) return Promise.resolve(true);
    const watched = this.#watched.get(taskId);
    if (watched && Date.now() - watched.at < RECHECK_MS && liveness.state(watched.holder) === 'alive') return Promise.resolve(false);
    return this.#ports.outage.run(
      () => this.#take(taskId),
      // Redis down: poll locally, as a single process would.
      () => true,
    );
  }

  async #take(taskId: string): Promise<boolean> {
    const { command, liveness, instanceId } = this.#ports;
    const key = this.#ports.key(taskId);
    await liveness.started;
    const answer = await command('EVAL', CLAIM, 1, key, instanceId, LEASE_KEY_TTL_MS);
    if (typeof answer === 'string') {
      // Held by another instance: taken over if that instance is gone.
      if ((await liveness.alive(answer)) || Number(await command('EVAL', TAKE_OVER, 1, key, answer, instanceId, LEASE_KEY_TTL_MS)) !== 1) {
        this.#held.delete(taskId);
        this.#watched.set(taskId, { holder: answer, at: Date.now() });
        return false;
      }
    }
    this.#held.set(taskId, Date.now());
    this.#watched.delete(taskId);
    this.#unreleased.delete(taskId);
    return true;
  }

  /**
   * The wait ended. `ended`: with the task's result, which the fleet has (published): the key
   * goes with a plain DEL. Otherwise a compare-and-delete, and a word to the fleet, so that a
   * waiter elsewhere takes over at once.
   */
  release(taskId: string, ended = false): void {
    this.#watched.delete(taskId);
    if (!this.#held.delete(taskId)) return;
    if (ended) {
      this.#ports.fire(() => this.#ports.command('DEL', this.#ports.key(taskId)));
      return;
    }
    this.#unreleased.add(taskId);
    this.#sendRelease(taskId);
  }

  /** Another instance gave the lease of `taskId` up: look again at the next hold. */
  forget(taskId: string): void {
    this.#watched.delete(taskId);
  }

  /** After an outage: what was held or watched may have changed hands; releases not taken are sent again. */
  reset(): void {
    this.#watched.clear();
    this.flush();
  }

  /** Send again the releases Redis has not taken yet (it was down). */
  flush(): void {
    for (const taskId of this.#unreleased) {
      if (this.#held.has(taskId)) this.#unreleased.delete(taskId);
      else this.#sendRelease(taskId);
    }
  }

  #sendRelease(taskId: string): void {
    this.#ports.fire(async () => {
      await this.#ports.command('EVAL', RELEASE, 1, this.#ports.key(taskId), this.#ports.instanceId);
      this.#unreleased.delete(taskId);
      this.#ports.released(taskId);
    });
  }
}
