import type { RedisDriver } from './driver.ts';
import type { Outage } from './outage.ts';
import { REPLICAS } from './scripts.ts';

/** Longest wait for a replica to confirm a journal write, in ms (a replica in sync answers within a round trip). */
const WAIT_MS = 50;
/** Heartbeats between two counts of the journal master's replicas. */
const REPLICAS_EVERY = 10;

/**
 * Journal writes acknowledged once a replica has them. Contract: on a cluster whose journal
 * master has a replica in sync, `write` sends the write and then `WAIT 1` on the same
 * connection, answering how many replicas have every write so far (0: none in `WAIT_MS`, and
 * none is waited for until the next count); elsewhere it only writes (`undefined`). `write()`
 * with no words only waits. Why: a failover right after an acknowledged record must not lose
 * it (the journal writes again what no replica confirmed).
 */
export class ReplicatedWrites {
  readonly #driver: () => RedisDriver;
  readonly #journalKey: string;
  /** A WAIT is on its way (it holds its connection, and every command behind it). */
  #waiting = false;
  /**
   * Replicas in sync with the journal's master, as last counted there (its own master, not the
   * live set's: on a cluster they differ). Set to 0 when one did not answer in time.
   */
  #replicas = 0;
  #beats = 0;

  constructor(driver: () => RedisDriver, journalKey: string) {
    this.#driver = driver;
    this.#journalKey = journalKey;
  }

  /** A journal write (with no words: only the wait); see the class. */
  async write(...args: (string | number)[]): Promise<number | undefined> {
    const driver = this.#driver();
    const words = args.length > 0 ? args.map(String) : ['EXISTS', this.#journalKey];
    const plain = async () => (args.length > 0 ? void (await driver.command(words)) : undefined);
    if (!driver.cluster || this.#replicas === 0) return plain();
    // One WAIT at a time: a write made meanwhile is confirmed by the next WAIT (it counts every
    // earlier write of the connection), or written again after an outage.
    if (this.#waiting) {
      await plain();
      return 0;
    }
    this.#waiting = true;
    try {
      const [, replicas] = await driver.replicated(words, 1, WAIT_MS);
      if (replicas === 0) this.#replicas = 0;
      return replicas;
    } finally {
      this.#waiting = false;
    }
  }

  /** At each heartbeat on a cluster: every tenth beat, count the journal master's replicas in sync. */
  beat(outage: Outage): void {
    if (!this.#driver().cluster || this.#beats++ % REPLICAS_EVERY !== 0) return;
    outage.fire(async () => {
      this.#replicas = Number(await this.#driver().command(['EVAL', REPLICAS, '1', this.#journalKey]));
    });
  }
}
