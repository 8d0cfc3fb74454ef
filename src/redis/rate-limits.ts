import { MemoryRateLimits } from '../coordination/memory.ts';
import type { RateLimitDecision, RateLimitStore } from '../coordination/ports.ts';
import { slotId } from './budget.ts';
import { replyList } from './driver.ts';
import type { Outage } from './outage.ts';
import { SLOTS_TAKE } from './scripts.ts';

/** What the rate limits need of their coordination. */
export interface RateLimitPorts {
  command(...args: (string | number)[]): Promise<unknown>;
  outage: Outage;
  /** The sorted set of a limit's key (one per identity: one hash slot on a cluster). */
  key(limitKey: string): string;
  instanceId: string;
}

/**
 * The proxy's rate limits on Redis: one sorted set per key, the budget's script (SLOTS_TAKE)
 * with no hold: a request counts from when it was let through until `windowMs` later. One key
 * per call, so one hash slot on a cluster. Redis down: this process's own counters (the fleet
 * may let through up to instances × the limit meanwhile).
 */
export class RedisRateLimits implements RateLimitStore {
  readonly #ports: RateLimitPorts;
  readonly #fallback = new MemoryRateLimits();

  constructor(ports: RateLimitPorts) {
    this.#ports = ports;
  }

  take(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    return this.#ports.outage.run(
      async () => {
        const reply = await this.#ports.command('EVAL', SLOTS_TAKE, 1, this.#ports.key(key), limit, windowMs, 0, 0, windowMs, slotId(this.#ports.instanceId));
        const [, answer = 0] = replyList(reply).map(Number);
        return answer === 0 ? { allowed: true as const } : { allowed: false as const, retryAfterMs: Math.max(1, -answer) };
      },
      () => this.#fallback.take(key, limit, windowMs),
    );
  }
}
