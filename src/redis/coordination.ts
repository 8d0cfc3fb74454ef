import type { Coordination, PollBudget } from '../coordination/ports.ts';
import { resolveRedisCoordinationOptions, type RedisCoordinationSettings } from '../option-checks.ts';
import type { RedisCoordinationOptions } from '../options.ts';
import { RedisPollBudget } from './budget.ts';
import { RedisDedupeStore } from './dedupe.ts';
import { driverOf, type RedisClientLike } from './driver.ts';
import { RedisDurations } from './durations.ts';
import { FleetEvents } from './events.ts';
import { FailoverClients } from './failover.ts';
import { RedisJournal } from './journal.ts';
import { KeyLayout } from './keys.ts';
import { RedisLeases } from './leases.ts';
import { Liveness } from './liveness.ts';
import { Outage } from './outage.ts';
import { RedisRateLimits } from './rate-limits.ts';
import { ReplicatedWrites } from './replication.ts';
import { RedisUploadCacheStore } from './uploads.ts';

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

/**
 * The wiring of the Redis coordination: one outage state, one liveness, the ports on them, and
 * one heartbeat (every `leaseMs / 3`) that keeps this instance alive, renews what it holds and
 * sends what Redis missed; while Redis is down it only probes, and once Redis answers for every
 * key, everything starts again from what Redis says. Which client commands go through is
 * `FailoverClients`'; journal writes a replica confirms are `ReplicatedWrites`'.
 */
class RedisCoordination implements Coordination {
  readonly instanceId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  readonly #clients: FailoverClients;
  readonly #replication: ReplicatedWrites;
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

  constructor(caller: ReturnType<typeof driverOf>, settings: RedisCoordinationSettings) {
    this.#settings = settings;
    const keys = (this.#keys = new KeyLayout(settings.prefix));
    const outage = (this.#outage = new Outage(settings.logger, settings.commandTimeoutMs));
    this.#clients = new FailoverClients(caller, {
      fleetKey: keys.shared('live'),
      probePrefix: keys.own('probe:'),
      commandTimeoutMs: settings.commandTimeoutMs,
      down: () => outage.down,
    });
    const driver = () => this.#clients.driver;
    this.#replication = new ReplicatedWrites(driver, keys.shared('journal'));
    const command = (...args: (string | number)[]) => driver().command(args.map(String));
    const fire = (op: () => Promise<unknown>) => outage.fire(op);
    const { instanceId } = this;
    const { leaseMs } = settings;
    const liveness = (this.#liveness = new Liveness({ command, key: keys.shared('live'), instanceId, leaseMs }));
    this.leases = new RedisLeases({
      command,
      fire,
      outage,
      liveness,
      instanceId,
      leaseMs,
      key: (taskId) => keys.own(`lease:${taskId}`),
      released: (taskId) => this.events.released(taskId),
    });
    this.journal = new RedisJournal({ command, replicated: (...args) => this.#replication.write(...args), key: (name) => keys.shared(name), outage, liveness, instanceId });
    this.events = new FleetEvents({
      driver,
      command,
      fire,
      outage,
      instanceId,
      channel: keys.shared('events'),
      resultKey: (taskId) => keys.own(`result:${taskId}`),
      progressKey: (taskId) => keys.own(`progress:${taskId}`),
      onReleased: (taskId) => this.leases.forget(taskId),
    });
    this.durations = new RedisDurations({ command, fire, outage, key: (kind) => keys.own(`durations:${kind}`) });
    this.dedupe = new RedisDedupeStore({ command, outage, liveness, instanceId, leaseMs, key: (key) => keys.own(`dedupe:${key}`) });
    this.uploads = new RedisUploadCacheStore({ command, outage, key: (key) => keys.own(`upload:${key}`) });
    this.rateLimits = new RedisRateLimits({ command, outage, instanceId, key: (key) => keys.own(`limit:${key}`) });

    this.#heartbeat();
    this.#timer = setInterval(() => this.#heartbeat(), Math.max(100, Math.floor(leaseMs / 3)));
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /**
   * This instance is alive (one script, whatever it holds), the subscription listens, what it
   * holds is renewed and what could not be sent is sent. While Redis is down, look for it; once
   * it answers for every key, start again from what Redis says.
   */
  #heartbeat(): void {
    if (this.#closed) return;
    if (this.#outage.down) {
      void this.#outage.probe(() => this.#clients.probe(), this.#settings.commandTimeoutMs * 3).then(() => this.#outage.down || this.#resume());
      return;
    }
    this.#outage.fire(() => this.#liveness.beat());
    this.#replication.beat(this.#outage);
    this.events.check();
    this.leases.flush();
    this.dedupe.beat();
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

  budget(maxPerSecond: number): PollBudget {
    let budget = this.#budgets.get(maxPerSecond);
    if (!budget) {
      const outage = this.#outage;
      const ports = { command: (...args: (string | number)[]) => this.#clients.driver.command(args.map(String)), fire: (op: () => Promise<unknown>) => outage.fire(op) };
      budget = new RedisPollBudget({ ...ports, outage, liveness: this.#liveness, instanceId: this.instanceId }, this.#keys.shared('budget'), maxPerSecond);
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
    this.#clients.close();
  }
}
