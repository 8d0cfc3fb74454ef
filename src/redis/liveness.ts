import { replyList } from './driver.ts';
import { ALIVE, HEARTBEAT } from './scripts.ts';

/** What the liveness needs of its coordination. */
export interface LivenessPorts {
  command(...args: (string | number)[]): Promise<unknown>;
  /** The sorted set of live instances (its own slot, `{live}`). */
  key: string;
  instanceId: string;
  leaseMs: number;
}

/** What is known of an instance: alive, dead, or not known without asking Redis. */
export type InstanceState = 'alive' | 'dead' | 'unknown';

/** Beats between two drops of the instances dead for a day. */
const EVERY = 10;

/**
 * Which instances of the fleet live. Each instance's heartbeat renews its deadline in one
 * sorted set (its own slot) and reads back every live instance's: so an instance that finds a
 * lease or a claim held by another knows, most of the time without a command, whether that
 * holder lives (claims and leases are spread over the cluster's slots; the live set is in
 * one). Deadlines are Redis's time; `redisNow()` is this process's estimate of it (its clock
 * plus the offset seen at the last beat). What the last beat cannot tell (a deadline passed
 * since, an instance it did not list) is asked with one script.
 */
export class Liveness {
  readonly #ports: LivenessPorts;
  #live = new Map<string, number>();
  /** Redis time minus this process's, at the last beat. */
  #offset = 0;
  /** This instance's own deadline as of its last beat that Redis answered. */
  #ownDeadline = Number.NEGATIVE_INFINITY;
  #beats = 0;
  /** How far `redisNow()` may be off: half the last beat's round trip, plus a millisecond. */
  uncertainty = 1;
  /**
   * Settles once the first beat was answered (or failed): what this instance writes naming
   * itself (a claim, a lease, a journal entry) waits for it, so that nobody reads its name
   * before its liveness and takes it for a dead instance's.
   */
  readonly started: Promise<void>;
  #start!: () => void;

  constructor(ports: LivenessPorts) {
    this.#ports = ports;
    this.started = new Promise((resolve) => (this.#start = resolve));
  }

  /** Redis's time now, as estimated here. */
  redisNow(): number {
    return Date.now() + this.#offset;
  }

  /**
   * This instance has lived without a gap since its last beat: nobody may have taken what it
   * holds (a holder is taken over only once its deadline passed).
   */
  get continuous(): boolean {
    return this.redisNow() < this.#ownDeadline - this.#ports.leaseMs / 3;
  }

  /** Forget our own continuity (an outage): what we hold is checked on Redis again. */
  interrupt(): void {
    this.#ownDeadline = Number.NEGATIVE_INFINITY;
  }

  /** One beat: renew this instance, read the others. */
  async beat(): Promise<void> {
    try {
      await this.#beat();
    } finally {
      this.#start();
    }
  }

  async #beat(): Promise<void> {
    const every = this.#beats++ % EVERY === 0;
    const sent = Date.now();
    const reply = (await this.#ports.command(
      'EVAL',
      HEARTBEAT,
      1,
      this.#ports.key,
      this.#ports.instanceId,
      this.#ports.leaseMs,
      every ? 1 : 0,
    )) as [unknown, unknown];
    const now = Number(reply[0]);
    // Redis read its clock somewhere within the round trip: take the middle.
    const back = Date.now();
    this.#offset = now - (sent + back) / 2;
    this.uncertainty = (back - sent) / 2 + 1;
    const live = new Map<string, number>();
    const words = replyList(reply[1]);
    for (let i = 0; i + 1 < words.length; i += 2) live.set(words[i] as string, Number(words[i + 1]));
    this.#live = live;
    this.#ownDeadline = now + this.#ports.leaseMs;
  }

  /** What the last beat tells of `id`, now. */
  state(id: string): InstanceState {
    if (id === this.#ports.instanceId) return 'alive';
    const deadline = this.#live.get(id);
    return deadline !== undefined && deadline > this.redisNow() ? 'alive' : 'unknown';
  }

  /** Ask Redis whether each of `ids` lives (one script for all): what `state()` could not tell. */
  async check(ids: string[]): Promise<Map<string, boolean>> {
    const answer = new Map<string, boolean>();
    if (ids.length === 0) return answer;
    const [now = 0, ...deadlines] = replyList(await this.#ports.command('EVAL', ALIVE, 1, this.#ports.key, ...ids)).map(Number);
    ids.forEach((id, i) => {
      const deadline = deadlines[i] ?? 0;
      answer.set(id, deadline > now);
      if (deadline > now) this.#live.set(id, deadline);
      else this.#live.delete(id);
    });
    return answer;
  }

  /** Whether `id` lives: from the last beat when it can tell, else from Redis. */
  async alive(id: string): Promise<boolean> {
    return this.state(id) === 'alive' || ((await this.check([id])).get(id) ?? false);
  }
}
