import {
  MemoryDedupeStore,
  MemoryDurationsStore,
  MemoryPollBudget,
  MemoryRateLimits,
  MemoryTaskEvents,
  MemoryUploadCacheStore,
} from '../coordination/memory.ts';
import type {
  CachedUpload,
  Coordination,
  DedupeClaim,
  PollBudget,
  PollGrant,
  RateLimitDecision,
  TaskListener,
} from '../coordination/ports.ts';
import { resolveRedisCoordinationOptions, type RedisCoordinationSettings } from '../option-checks.ts';
import type { RedisCoordinationOptions } from '../options.ts';
import type { TaskResult } from '../schemas/task.ts';
import { isTerminalStatus } from '../waiting/status.ts';
import { driverOf, replyList, storedJson, type RedisClientLike, type RedisDriver, type Subscription } from './driver.ts';
import { RedisJournal } from './journal.ts';
import { Outage } from './outage.ts';
import { BUDGET_RELEASE, BUDGET_TAKE, DEDUPE_CLAIM, DURATION_ADD, LEASE_HOLD, LEASE_RELEASE } from './scripts.ts';

const DAY_MS = 24 * 3_600_000;
const MAX_HOLD_MS = 5_000;
const WINDOW_MS = 1_000;
// A lease lives as long as its holder's liveness key; the lease key's own expiry only collects
// leases nobody released, and is renewed at every hold (before each query: gaps are 30 s at most).
const LEASE_KEY_TTL_MS = 120_000;

/**
 * The state a fleet shares, on Redis, through your own client (node-redis >= 5, connected, or
 * an ioredis instance): give it to every instance's `new OmniMedia({ coordination })`.
 * It opens one connection of its own (a `duplicate()`, for pub/sub); `close()` closes it and
 * stops its timer, never your client. See the README, "Running on many instances".
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
  readonly #driver: RedisDriver;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #outage: Outage;
  readonly #local = new MemoryTaskEvents();
  readonly #held = new Set<string>();
  /** Leases given up whose release has not reached Redis yet (it was down): sent again at each heartbeat. */
  readonly #unreleased = new Set<string>();
  readonly leases: Coordination['leases'];
  /** Accepted submissions: see journal.ts. */
  readonly journal: RedisJournal;
  readonly #timer: ReturnType<typeof setInterval>;
  /** The pub/sub connection; `undefined` when it must be (re)made. */
  #subscription: Subscription | undefined;
  #closed = false;
  readonly #fallback = {
    dedupe: new MemoryDedupeStore(),
    uploads: new MemoryUploadCacheStore(),
    durations: new MemoryDurationsStore(),
    budgets: new Map<number, MemoryPollBudget>(),
    rateLimits: new MemoryRateLimits(),
  };

  constructor(driver: RedisDriver, options: RedisCoordinationSettings) {
    this.#driver = driver;
    this.#prefix = options.prefix;
    this.#leaseMs = options.leaseMs;
    this.#outage = new Outage(options.logger, options.commandTimeoutMs);
    this.journal = new RedisJournal({ command: (...args) => this.#command(...args), key: (name) => this.#key(name), outage: this.#outage, instanceId: this.instanceId });
    this.leases = {
      ttlMs: this.#leaseMs,
      hold: (taskId: string): Promise<boolean> =>
        this.#outage.run(
          async () => {
            const lease = this.#key(`lease:${taskId}`);
            const held = Number(await this.#command('EVAL', LEASE_HOLD, 1, lease, this.instanceId, this.#key('instance:'), LEASE_KEY_TTL_MS)) === 1;
            if (held) {
              this.#held.add(taskId);
              this.#unreleased.delete(taskId);
            } else this.#held.delete(taskId);
            return held;
          },
          // Redis down: poll locally, as a single process would.
          () => true,
        ),
      release: (taskId: string): void => {
        if (!this.#held.delete(taskId)) return;
        this.#unreleased.add(taskId);
        this.#sendRelease(taskId);
      },
    };

    this.#subscribe();
    this.#heartbeat();
    this.#timer = setInterval(() => this.#heartbeat(), Math.max(100, Math.floor(this.#leaseMs / 3)));
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #key(name: string): string {
    return `${this.#prefix}${name}`;
  }

  #command(...args: (string | number)[]): Promise<unknown> {
    return this.#driver.command(args.map(String));
  }

  /**
   * Listen to the fleet's news on a connection of our own. A failure is part of the outage
   * (one warning); the heartbeat subscribes again once Redis is back.
   */
  #subscribe(): void {
    const subscription = this.#driver.subscribe(this.#key('events'), (message) => this.#onMessage(message));
    this.#subscription = subscription;
    subscription.ready.catch((error: unknown) => {
      subscription.close();
      if (this.#subscription === subscription) this.#subscription = undefined;
      this.#outage.fail(error);
    });
  }

  /**
   * This instance is alive, and so are its leases and its journal entries (they name it); while
   * Redis is down, look for it, and beat at once when it is back.
   */
  #heartbeat(): void {
    if (this.#closed) return;
    if (this.#outage.down) {
      void this.#outage.probe(() => this.#command('PING')).then(() => this.#outage.down || this.#heartbeat());
      return;
    }
    if (!this.#subscription) this.#subscribe();
    this.#outage.fire(() => this.#command('SET', this.#key(`instance:${this.instanceId}`), '1', 'PX', this.#leaseMs));
    this.#releaseLeases();
    this.journal.flush();
  }

  /** Send again the releases Redis has not taken yet (it was down). */
  #releaseLeases(): void {
    for (const taskId of this.#unreleased) {
      if (this.#held.has(taskId)) this.#unreleased.delete(taskId);
      else this.#sendRelease(taskId);
    }
  }

  /** Give up one lease on Redis; it leaves `#unreleased` once Redis has taken it. */
  #sendRelease(taskId: string): void {
    this.#outage.fire(async () => {
      await this.#command('EVAL', LEASE_RELEASE, 1, this.#key(`lease:${taskId}`), this.instanceId);
      this.#unreleased.delete(taskId);
    });
  }

  #onMessage(message: string): void {
    try {
      const { from, task } = JSON.parse(message) as { from: string; task: TaskResult };
      if (from !== this.instanceId && task && typeof task.task_id === 'string') this.#local.publish(task);
    } catch {
      // Not ours: ignored.
    }
  }

  /** Claims this instance's handlers run `onTask` for now: a second delivery to it is in progress without asking Redis. */
  readonly #handling = new Set<string>();

  readonly dedupe = {
    claim: async (key: string): Promise<DedupeClaim> => {
      if (this.#handling.has(key)) return 'in_progress';
      const claim = await this.#outage.run(
        async (): Promise<DedupeClaim> => {
          const ask = (holder: string) =>
            this.#command('EVAL', DEDUPE_CLAIM, 2, this.#key(`dedupe:${key}`), this.#key(`instance:${holder}`), this.instanceId, DAY_MS, holder);
          let answer = await ask(this.instanceId);
          // Held by another instance: taken over if that instance is gone.
          if (typeof answer === 'string' && answer !== '1' && answer !== '0') answer = await ask(answer);
          const code = Number(answer);
          return code === 1 ? true : code === 0 ? false : 'in_progress';
        },
        () => this.#fallback.dedupe.claim(key),
      );
      if (claim === true) this.#handling.add(key);
      return claim;
    },
    complete: (key: string): Promise<void> => {
      this.#handling.delete(key);
      return this.#outage.run(
        async () => void (await this.#command('SET', this.#key(`dedupe:${key}`), 'done', 'PX', DAY_MS)),
        () => this.#fallback.dedupe.complete(key),
      );
    },
    release: (key: string): Promise<void> => {
      this.#handling.delete(key);
      return this.#outage.run(
        async () => void (await this.#command('EVAL', LEASE_RELEASE, 1, this.#key(`dedupe:${key}`), this.instanceId)),
        () => this.#fallback.dedupe.release(key),
      );
    },
  };

  readonly uploads = {
    get: (key: string): Promise<CachedUpload | undefined> =>
      this.#outage.run(
        async () => {
          const value = await this.#command('GET', this.#key(`upload:${key}`));
          return storedJson<CachedUpload>(value);
        },
        () => this.#fallback.uploads.get(key),
      ),
    set: (key: string, record: CachedUpload, ttlMs: number): Promise<void> =>
      this.#outage.run(
        async () => void (await this.#command('SET', this.#key(`upload:${key}`), JSON.stringify(record), 'PX', Math.max(1, Math.floor(ttlMs)))),
        () => this.#fallback.uploads.set(key, record, ttlMs),
      ),
    delete: (key: string): Promise<void> =>
      this.#outage.run(
        async () => void (await this.#command('DEL', this.#key(`upload:${key}`))),
        () => this.#fallback.uploads.delete(key),
      ),
  };

  readonly durations = {
    get: (kind: string): Promise<readonly number[] | undefined> =>
      this.#outage.run(
        async () => {
          const samples = replyList(await this.#command('LRANGE', this.#key(`durations:${kind}`), 0, -1)).map(Number);
          return samples.length ? samples : undefined;
        },
        () => this.#fallback.durations.get(kind),
      ),
    add: (kind: string, ms: number, keep: number): Promise<void> =>
      this.#outage.run(
        async () => void (await this.#command('EVAL', DURATION_ADD, 1, this.#key(`durations:${kind}`), ms, keep, 30 * DAY_MS)),
        () => this.#fallback.durations.add(kind, ms, keep),
      ),
  };

  readonly events = {
    publish: (task: TaskResult): void => {
      this.#local.publish(task);
      // Only an ended task is news for the fleet, kept a day for the waits that start later.
      if (!isTerminalStatus(task.status)) return;
      const message = JSON.stringify({ from: this.instanceId, task });
      this.#outage.fire(async () => {
        await this.#command('SET', this.#key(`result:${task.task_id}`), JSON.stringify(task), 'PX', DAY_MS);
        await this.#command('PUBLISH', this.#key('events'), message);
      });
    },
    subscribe: (taskId: string, listener: TaskListener): (() => void) => this.#local.subscribe(taskId, listener),
    latest: (taskId: string): Promise<TaskResult | undefined> =>
      this.#outage.run(
        async () => {
          const value = await this.#command('GET', this.#key(`result:${taskId}`));
          const task = storedJson<TaskResult>(value);
          return typeof task?.task_id === 'string' && typeof task.status === 'string' ? task : undefined;
        },
        () => undefined,
      ),
  };

  budget(maxPerSecond: number): PollBudget {
    const local = (): MemoryPollBudget => {
      let budget = this.#fallback.budgets.get(maxPerSecond);
      if (!budget) this.#fallback.budgets.set(maxPerSecond, (budget = new MemoryPollBudget(maxPerSecond)));
      return budget;
    };
    const key = this.#key('budget');
    return {
      maxPerSecond,
      take: (now: number): Promise<PollGrant> =>
        this.#outage.run(
          async () => {
            const id = `${this.instanceId}:${Math.random().toString(36).slice(2, 12)}`;
            const [granted, ms] = replyList(await this.#command('EVAL', BUDGET_TAKE, 1, key, maxPerSecond, id, MAX_HOLD_MS, WINDOW_MS)).map(Number);
            if (granted === 1) return { release: () => this.#outage.fire(() => this.#command('EVAL', BUDGET_RELEASE, 1, key, id)) };
            return { retryAt: Date.now() + Math.max(1, ms ?? WINDOW_MS) };
          },
          // Redis down: a budget of this process's own (the fleet may exceed the cap meanwhile).
          () => local().take(now),
        ),
    };
  }

  /**
   * One sorted set per key, the same sliding-window script as the poll budget with no hold: a
   * request counts from when it was let through until `windowMs` later. One key per call, so
   * it is one hash slot on a cluster.
   */
  readonly rateLimits = {
    take: (key: string, limit: number, windowMs: number): Promise<RateLimitDecision> =>
      this.#outage.run(
        async () => {
          const id = `${this.instanceId}:${Math.random().toString(36).slice(2, 12)}`;
          const [granted, ms] = replyList(await this.#command('EVAL', BUDGET_TAKE, 1, this.#key(`limit:${key}`), limit, id, 0, windowMs)).map(Number);
          return granted === 1 ? { allowed: true as const } : { allowed: false as const, retryAfterMs: Math.max(1, ms ?? windowMs) };
        },
        // Redis down: this process's own counters (the fleet may let through up to instances × the limit meanwhile).
        () => this.#fallback.rateLimits.take(key, limit, windowMs),
      ),
  };

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#outage.close();
    this.#subscription?.close();
    this.#subscription = undefined;
  }
}


