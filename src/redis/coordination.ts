import type { Coordination, PollBudget } from '../coordination/ports.ts';
import { raceTimer } from '../internal/race-timer.ts';
import { resolveRedisCoordinationOptions, type RedisCoordinationSettings } from '../option-checks.ts';
import type { RedisCoordinationOptions } from '../options.ts';
import { RedisPollBudget } from './budget.ts';
import { RedisDedupeStore } from './dedupe.ts';
import { driverOf, type RedisClientLike, type RedisDriver } from './driver.ts';
import { RedisDurations } from './durations.ts';
import { FleetEvents } from './events.ts';
import { probeRedis } from './health.ts';
import { RedisJournal } from './journal.ts';
import { KeyLayout } from './keys.ts';
import { RedisLeases } from './leases.ts';
import { Liveness } from './liveness.ts';
import { Outage } from './outage.ts';
import { REPLICAS } from './scripts.ts';
import { RedisRateLimits } from './rate-limits.ts';
import { RedisUploadCacheStore } from './uploads.ts';

/** Longest wait for a replica to confirm a journal write, in ms (a replica in sync answers within a round trip). */
const WAIT_MS = 50;
/** Heartbeats between two counts of the journal master's replicas. */
const REPLICAS_EVERY = 10;
/**
 * How long the caller's cluster client may go on failing once the cluster says it is whole
 * again before commands go through a client of our own, made then, in ms: clients refresh
 * their slot map by themselves within about a second (ioredis) or five (node-redis 6), or
 * never (node-redis before 6, until a MOVED reply: its issue 2806).
 */
const STALE_GRACE_MS = 1_000;
/** How long a client of our own may take to connect to a cluster, in ms (one that hangs is closed, and another made). */
const FRESH_CLIENT_MS = 1_000;

/**
 * The state a fleet shares, on Redis, through your own client: node-redis >= 5 (connected,
 * `createClient` or `createCluster`) or ioredis >= 5 (`Redis` or `Cluster`), told apart by the
 * client itself. Give it to every instance's `new OmniMedia({ coordination })`. It opens one
 * client of its own (a `duplicate()`, for pub/sub); `close()` closes it and stops its timer,
 * never your client. See the guide
 * [Fleets on Redis and Redis Cluster](https://github.com/omnimedia/omnimedia/blob/main/docs/fleets.md).
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { OmniMedia } from 'omnimedia';
 * import { redisCoordination } from 'omnimedia/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const coordination = redisCoordination(redis, { prefix: 'omnimedia:' });
 * const client = new OmniMedia({ coordination });
 * // at shutdown: await coordination.close(); await redis.quit();
 * ```
 */
export function redisCoordination(redis: RedisClientLike, options: RedisCoordinationOptions = {}): Coordination & { readonly instanceId: string } {
  const settings = resolveRedisCoordinationOptions(options);
  return new RedisCoordination(driverOf(redis), settings);
}

class RedisCoordination implements Coordination {
  readonly instanceId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  /** The caller's client. */
  readonly #caller: RedisDriver;
  /** The client commands go through: the caller's, or one of our own after a failover it did not see. */
  #driver: RedisDriver;
  #own: { close(): void } | undefined;
  readonly #keys: KeyLayout;
  readonly #settings: RedisCoordinationSettings;
  readonly #outage: Outage;
  readonly #liveness: Liveness;
  readonly leases: RedisLeases;
  readonly journal: RedisJournal;
  readonly events: FleetEvents;
  readonly durations: RedisDurations;
  readonly dedupe: RedisDedupeStore;
  readonly uploads: RedisUploadCacheStore;
  readonly rateLimits: RedisRateLimits;
  readonly #budgets = new Map<number, RedisPollBudget>();
  readonly #timer: ReturnType<typeof setInterval>;
  #closed = false;
  /** During an outage on a cluster: a client of our own, made when the cluster was whole again, and since when. */
  #candidate: { driver: RedisDriver; close(): void } | undefined;
  #making: { close(): void } | undefined;
  #wholeSince: number | undefined;
  /** A WAIT is on its way (journal writes). */
  #waiting = false;
  /**
   * Replicas in sync with the journal's master, as last counted there (clusters, every tenth
   * beat; its own master, not the live set's: on a cluster they differ): whether a journal
   * write waits for one. Set to 0 when one did not answer in time, until the next count.
   */
  #replicas = 0;
  #beats = 0;

  constructor(driver: RedisDriver, settings: RedisCoordinationSettings) {
    this.#caller = this.#driver = driver;
    this.#settings = settings;
    this.#keys = new KeyLayout(settings.prefix);
    this.#outage = new Outage(settings.logger, settings.commandTimeoutMs);
    const command = (...args: (string | number)[]) => this.#command(...args);
    const fire = (op: () => Promise<unknown>) => this.#outage.fire(op);
    const { instanceId } = this;
    const outage = this.#outage;
    const liveness = (this.#liveness = new Liveness({ command, key: this.#keys.shared('live'), instanceId, leaseMs: settings.leaseMs }));
    this.leases = new RedisLeases({
      command,
      fire,
      outage,
      liveness,
      instanceId,
      leaseMs: settings.leaseMs,
      key: (taskId) => this.#keys.own(`lease:${taskId}`),
      released: (taskId) => this.events.released(taskId),
    });
    this.journal = new RedisJournal({
      command,
      replicated: (...args) => this.#replicated(...args),
      key: (name) => this.#keys.shared(name),
      outage,
      liveness,
      instanceId,
    });
    this.events = new FleetEvents({
      driver: () => this.#driver,
      command,
      fire,
      outage,
      instanceId,
      channel: this.#keys.shared('events'),
      resultKey: (taskId) => this.#keys.own(`result:${taskId}`),
      progressKey: (taskId) => this.#keys.own(`progress:${taskId}`),
      onReleased: (taskId) => this.leases.forget(taskId),
    });
    this.durations = new RedisDurations({ command, fire, outage, key: (kind) => this.#keys.own(`durations:${kind}`) });
    this.dedupe = new RedisDedupeStore({ command, outage, liveness, instanceId, key: (key) => this.#keys.own(`dedupe:${key}`) });
    this.uploads = new RedisUploadCacheStore({ command, outage, key: (key) => this.#keys.own(`upload:${key}`) });
    this.rateLimits = new RedisRateLimits({ command, outage, instanceId, key: (key) => this.#keys.own(`limit:${key}`) });

    this.#heartbeat();
    this.#timer = setInterval(() => this.#heartbeat(), Math.max(100, Math.floor(settings.leaseMs / 3)));
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #command(...args: (string | number)[]): Promise<unknown> {
    return this.#driver.command(args.map(String));
  }

  /**
   * A journal write (with no words: only the wait): on a cluster whose master has a replica in
   * sync, acknowledged once one has it (WAIT), so a failover right after does not lose it.
   */
  async #replicated(...args: (string | number)[]): Promise<number | undefined> {
    const words = args.length > 0 ? args.map(String) : ['EXISTS', this.#keys.shared('journal')];
    const plain = async () => (args.length > 0 ? void (await this.#driver.command(words)) : undefined);
    if (!this.#driver.cluster || this.#replicas === 0) return plain();
    // WAIT holds the connection it is sent on, and every command behind it: one at a time. A
    // write made meanwhile is confirmed by the next WAIT (it counts every earlier write of the
    // connection), or written again after an outage. A replica that did not answer within
    // WAIT_MS is not waited for until the next count of replicas.
    if (this.#waiting) return (await plain(), 0);
    this.#waiting = true;
    try {
      const [, replicas] = await this.#driver.replicated(words, 1, WAIT_MS);
      if (replicas === 0) this.#replicas = 0;
      return replicas;
    } finally {
      this.#waiting = false;
    }
  }

  /**
   * This instance is alive (one script, whatever it holds), the subscription listens, and what
   * could not be sent is sent. While Redis is down, look for it; once it answers for every
   * key, start again from what Redis says.
   */
  #heartbeat(): void {
    if (this.#closed) return;
    if (this.#outage.down) {
      void this.#outage.probe(() => this.#probe(), this.#settings.commandTimeoutMs * 3).then(() => this.#outage.down || this.#resume());
      return;
    }
    this.#outage.fire(() => this.#liveness.beat());
    if (this.#driver.cluster && this.#beats++ % REPLICAS_EVERY === 0)
      this.#outage.fire(async () => {
        this.#replicas = Number(await this.#command('EVAL', REPLICAS, 1, this.#keys.shared('journal')));
      });
    this.events.check();
    this.leases.flush();
    this.journal.flush();
    this.durations.flush();
  }

  /** Back from an outage: what this instance held or saw may have changed; listen anew. */
  #resume(): void {
    this.#liveness.interrupt();
    this.journal.resume();
    this.leases.reset();
    this.events.renew();
    this.#heartbeat();
  }

  async #probe(): Promise<string | void> {
    const fleetKey = this.#keys.shared('live');
    const probeKeys = this.#keys.own('probe:');
    const timeoutMs = this.#settings.commandTimeoutMs * 2;
    const probe = (driver: RedisDriver) =>
      raceTimer(probeRedis(driver, fleetKey, probeKeys), timeoutMs, (): never => {
        throw new Error(`no answer within ${timeoutMs} ms`);
      });
    const candidate = this.#candidate;
    const [caller, own] = await Promise.allSettled([probe(this.#driver), candidate ? probe(candidate.driver) : Promise.reject(new Error('none'))]);
    if (caller.status === 'fulfilled') {
      this.#dropCandidate();
      return;
    }
    // A cluster client made before a failover may route the moved slots to the dead master
    // until a MOVED reply refreshes its map (node-redis issue 2806), while one made after it
    // does not. A client of our own, made now, tells when the cluster answers again for every
    // slot; if the caller's still fails STALE_GRACE_MS after that, commands go through ours.
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

  /** A client of our own, connecting in the background (a connection made while the cluster fails over may hang). */
  #makeCandidate(): void {
    if (!this.#caller.fresh || this.#making) return;
    const made = this.#caller.fresh();
    this.#making = made;
    const gaveUp = setTimeout(() => {
      if (this.#making === made) this.#making = undefined;
      made.close();
    }, FRESH_CLIENT_MS);
    made.ready.then(
      (driver) => {
        clearTimeout(gaveUp);
        if (this.#making !== made || this.#closed || !this.#outage.down) return made.close();
        this.#making = undefined;
        this.#candidate = { driver, close: made.close };
      },
      () => {
        clearTimeout(gaveUp);
        if (this.#making === made) this.#making = undefined;
        made.close();
      },
    );
  }

  #dropCandidate(): void {
    this.#candidate?.close();
    this.#candidate = undefined;
    this.#wholeSince = undefined;
  }

  budget(maxPerSecond: number): PollBudget {
    let budget = this.#budgets.get(maxPerSecond);
    if (!budget) {
      const ports = { command: (...args: (string | number)[]) => this.#command(...args), fire: (op: () => Promise<unknown>) => this.#outage.fire(op) };
      budget = new RedisPollBudget({ ...ports, outage: this.#outage, liveness: this.#liveness, instanceId: this.instanceId }, this.#keys.shared('budget'), maxPerSecond);
      this.#budgets.set(maxPerSecond, budget);
    }
    return budget;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.durations.flush();
    this.#outage.close();
    this.events.close();
    for (const budget of this.#budgets.values()) budget.close();
    this.#own?.close();
    this.#own = undefined;
    this.#dropCandidate();
  }
}
