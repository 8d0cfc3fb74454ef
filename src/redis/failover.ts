import { callPort, firePort } from '../internal/port-call.ts';
import { isThenable } from '../internal/thenable.ts';
import type { RedisDriver } from './driver.ts';
import { probeRedis } from './health.ts';

/** What the failover's clients need of their coordination. */
export interface FailoverPorts {
  /** The live set's key (what a probe reads on one Redis) and a prefix for the keys a probe reads in each slot range. */
  fleetKey: string;
  probePrefix: string;
  commandTimeoutMs: number;
  /** Whether the coordination is in an outage now (a client of our own is made only then). */
  down(): boolean;
}

/**
 * How long the caller's cluster client may go on failing once the cluster is whole again before
 * commands go through a client of our own, in ms (clients refresh their slot map within about a
 * second (ioredis) or five (node-redis 6), or not before a MOVED reply (node-redis before 6: its
 * issue 2806)).
 */
const STALE_GRACE_MS = 1_000;
/** How long a client of our own may take to connect to a cluster, in ms (one that hangs is closed, and another made). */
const FRESH_CLIENT_MS = 1_000;

/**
 * Which client the coordination's commands go through. Contract: `driver` is the caller's
 * client, until a probe during an outage finds the cluster whole again through a client of our
 * own while the caller's still fails `STALE_GRACE_MS` later (it routes moved slots to a master
 * that is gone); from then on, that client of ours. `probe()` resolves when Redis answers for
 * every key the coordination may touch (a note when it switched clients), and rejects while it
 * does not. `close()` closes what it opened, never the caller's client.
 */
export class FailoverClients {
  readonly #ports: FailoverPorts;
  readonly #caller: RedisDriver;
  #driver: RedisDriver;
  #own: { close(): void } | undefined;
  /** During an outage on a cluster: a client of our own, made when the cluster was whole again, and since when. */
  #candidate: { driver: RedisDriver; close(): void } | undefined;
  #making: { close(): void } | undefined;
  #wholeSince: number | undefined;
  #closed = false;

  constructor(caller: RedisDriver, ports: FailoverPorts) {
    this.#caller = this.#driver = caller;
    this.#ports = ports;
  }

  /** The client commands go through now. */
  get driver(): RedisDriver {
    return this.#driver;
  }

  /** Whether Redis answers for every key, through the client commands go through (switching to ours when only ours does). */
  async probe(): Promise<string | void> {
    const { fleetKey, probePrefix } = this.#ports;
    const timeoutMs = this.#ports.commandTimeoutMs * 2;
    const probe = (driver: RedisDriver) =>
      callPort(() => probeRedis(driver, fleetKey, probePrefix), {
        timeoutMs,
        fallback: (why): never => {
          throw why;
        },
      });
    const candidate = this.#candidate;
    const [caller, own] = await Promise.allSettled([probe(this.#driver), candidate ? probe(candidate.driver) : Promise.reject(new Error('none'))]);
    if (caller.status === 'fulfilled') {
      this.#dropCandidate();
      return;
    }
    // A cluster client made before a failover may route the moved slots to the dead master
    // until a MOVED reply refreshes its map, while one made after it does not: a client of our
    // own, made now, tells when the cluster answers again for every slot.
    if (!candidate || own.status === 'rejected') {
      // Not yet (and its slot map may be stale too): another one is made.
      if (candidate && this.#candidate === candidate) this.#dropCandidate();
      if (!this.#candidate) this.#makeCandidate();
      throw caller.reason;
    }
    this.#wholeSince ??= Date.now();
    if (Date.now() - this.#wholeSince < STALE_GRACE_MS) throw caller.reason;
    this.#own?.close();
    this.#own = candidate;
    this.#driver = candidate.driver;
    this.#candidate = undefined;
    this.#wholeSince = undefined;
    return 'through a cluster client of its own: yours still routes to a node that is gone';
  }

  close(): void {
    this.#closed = true;
    this.#own?.close();
    this.#own = undefined;
    this.#dropCandidate();
  }

  /**
   * A client of our own, connecting in the background: within `FRESH_CLIENT_MS` (a connection
   * made while the cluster fails over may hang), else closed, and another made at the next probe.
   */
  #makeCandidate(): void {
    const caller = this.#caller;
    if (!caller.fresh || this.#making) return;
    const answer = callPort(() => caller.fresh?.(), { timeoutMs: FRESH_CLIENT_MS, fallback: () => undefined });
    if (!answer || isThenable(answer)) return;
    const made: { ready: Promise<RedisDriver>; close(): void } = answer;
    this.#making = made;
    const close = () => firePort(() => made.close());
    void Promise.resolve(callPort(() => made.ready, { timeoutMs: FRESH_CLIENT_MS, fallback: () => undefined })).then((driver) => {
      const wanted = this.#making === made && !this.#closed && this.#ports.down();
      if (this.#making === made) this.#making = undefined;
      if (!driver || !wanted) return close();
      this.#candidate = { driver, close };
    });
  }

  #dropCandidate(): void {
    this.#candidate?.close();
    this.#candidate = undefined;
    this.#wholeSince = undefined;
  }
}
