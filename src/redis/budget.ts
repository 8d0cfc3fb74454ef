import { MemoryPollBudget } from '../coordination/memory.ts';
import type { PollBudget, PollGrant } from '../coordination/ports.ts';
import { replyList } from './driver.ts';
import type { Liveness } from './liveness.ts';
import type { Outage } from './outage.ts';
import { SLOTS_TAKE } from './scripts.ts';

const MAX_HOLD_MS = 5_000;
const WINDOW_MS = 1_000;
/** A slot handed out but not used within this long after its start is given back. */
const USE_WITHIN_MS = 1_000;

/** What the budget needs of its coordination. */
export interface BudgetPorts {
  command(...args: (string | number)[]): Promise<unknown>;
  /** A command nobody waits for (a failure starts an outage). */
  fire(op: () => Promise<unknown>): void;
  outage: Outage;
  liveness: Liveness;
  instanceId: string;
}

/** A slot Redis gave this instance: a query may start at `at` (this process's clock). */
interface Granted {
  id: string;
  at: number;
}

/** A member of a SLOTS_TAKE set: its instance, and a token of its own. */
export const slotId = (instanceId: string) => `${instanceId}:${Math.random().toString(36).slice(2, 12)}`;

/**
 * The fleet's query budget on Redis: the rule of the in-memory one (a query counts until one
 * second after its answer), kept in one sorted set by SLOTS_TAKE. Cheap where a fleet spends
 * most: one script asks for as many slots as this instance has queries due, and Redis answers
 * each with "now" or "at t", reserving the slot that frees at t (a query already answered), so
 * an instance asks once per batch instead of once per query and per refusal; an answer is one
 * plain `ZADD XX LT` (the end as Redis's time, estimated here, never later than it was), sent
 * with the others of the same moment.
 */
export class RedisPollBudget implements PollBudget {
  readonly maxPerSecond: number;
  readonly #ports: BudgetPorts;
  readonly #key: string;
  readonly #local: MemoryPollBudget;
  /** Slots Redis granted that no query took yet, earliest first. */
  #granted: Granted[] = [];
  #answered: string[] = [];
  #unused: string[] = [];
  #flushing = false;
  #sweep: ReturnType<typeof setTimeout> | undefined;

  constructor(ports: BudgetPorts, key: string, maxPerSecond: number) {
    this.#ports = ports;
    this.#key = key;
    this.maxPerSecond = maxPerSecond;
    this.#local = new MemoryPollBudget(maxPerSecond);
  }

  take(now: number, due = 1): PollGrant | Promise<PollGrant> {
    this.#dropUnused(now);
    const first = this.#granted[0];
    if (first && first.at <= now) {
      this.#granted.shift();
      return this.#grant(first.id);
    }
    // A reserved slot is coming: the query waits for it rather than taking another.
    if (first) return { retryAt: first.at };
    return this.#ports.outage.run(
      () => this.#ask(due),
      // Redis down: a budget of this process's own (the fleet may exceed the cap meanwhile).
      () => this.#local.take(now),
    );
  }

  async #ask(due: number): Promise<PollGrant> {
    const ids = Array.from({ length: Math.max(1, Math.min(due, this.maxPerSecond)) }, () => slotId(this.#ports.instanceId));
    const sent = Date.now();
    const [, ...answers] = replyList(await this.#ports.command('EVAL', SLOTS_TAKE, 1, this.#key, this.maxPerSecond, WINDOW_MS, MAX_HOLD_MS, 1, 0, ...ids)).map(Number);
    let retryAt = Number.POSITIVE_INFINITY;
    answers.forEach((ms, i) => {
      // A reservation is timed from when the request left: never earlier than Redis meant.
      if (ms >= 0) this.#granted.push({ id: ids[i] as string, at: ms === 0 ? sent : Date.now() + ms });
      else retryAt = Math.min(retryAt, Date.now() - ms);
    });
    this.#armSweep();
    const now = Date.now();
    const first = this.#granted[0];
    if (first && first.at <= now) {
      this.#granted.shift();
      return this.#grant(first.id);
    }
    return { retryAt: Math.min(first?.at ?? retryAt, retryAt) };
  }

  #grant(id: string): PollGrant {
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        this.#answered.push(id);
        this.#flushSoon();
      },
    };
  }

  /** Slots not taken within USE_WITHIN_MS of their start go back to the fleet. */
  #dropUnused(now: number): void {
    while (this.#granted.length > 0 && (this.#granted[0] as Granted).at + USE_WITHIN_MS < now) {
      this.#unused.push((this.#granted.shift() as Granted).id);
      this.#flushSoon();
    }
  }

  #armSweep(): void {
    if (this.#sweep !== undefined || this.#granted.length === 0) return;
    const last = this.#granted[this.#granted.length - 1] as Granted;
    this.#sweep = setTimeout(() => {
      this.#sweep = undefined;
      this.#dropUnused(Date.now());
      this.#armSweep();
    }, Math.max(0, last.at + USE_WITHIN_MS + 1 - Date.now()));
    (this.#sweep as { unref?: () => void }).unref?.();
  }

  /** Answers of the same moment go in one command (ZADD takes many members). */
  #flushSoon(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    setTimeout(() => {
      this.#flushing = false;
      const { liveness } = this.#ports;
      if (this.#answered.length > 0) {
        // Redis's time of the answer, estimated high (the clock offset's uncertainty added), so a
        // query never stops counting before it was answered as Redis sees time.
        const end = String(Math.ceil(liveness.redisNow() + liveness.uncertainty));
        const members = this.#answered.splice(0).flatMap((id) => [end, id]);
        this.#ports.fire(() => this.#ports.command('ZADD', this.#key, 'XX', 'LT', ...members));
      }
      if (this.#unused.length > 0) {
        const unused = this.#unused.splice(0);
        this.#ports.fire(() => this.#ports.command('ZREM', this.#key, ...unused));
      }
    }, 0);
  }

  close(): void {
    if (this.#sweep !== undefined) clearTimeout(this.#sweep);
    this.#sweep = undefined;
  }
}

