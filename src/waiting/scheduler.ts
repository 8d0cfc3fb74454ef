/**
 * One queue of wake-ups for all the waits of a client, under one query budget.
 *
 * Why: 1,000 concurrent waits must neither hold 1,000 timers nor send their queries whenever
 * each pleases. Every wait asks the scheduler for a query slot at a time; the scheduler keeps
 * all requests in one binary heap, arms a single timer for the earliest, and hands out slots
 * as the `PollBudget` allows (in one process, `MemoryPollBudget`: a sliding one-second window
 * as the service sees it; on a fleet, the fleet's budget). Queries held back by the budget go
 * out in order of their due time as soon as it allows, so waits that were kept waiting are
 * served first, and each wait then times its next query from when it really ran.
 *
 * Deadline wake-ups share the one timer but take no slot: a deadline never waits on the budget.
 */
import { MemoryPollBudget } from '../coordination/memory.ts';
import type { PollBudget, PollGrant } from '../coordination/ports.ts';
import { DEFAULT_MAX_POLLS_PER_SECOND } from '../options.ts';
import { isThenable } from '../internal/thenable.ts';
import { PortGuard, PORT_TIMEOUT_MS, type PortLog } from '../internal/port-call.ts';

// setTimeout fires at once beyond this (about 24.8 days); longer waits re-arm on the way.
const MAX_TIMER_MS = 2_147_483_647;
/** A budget's "not before" is believed this far ahead at most (a window is one second). */
const MAX_RETRY_AT_MS = 10_000;
/** ...and this far at least: a "not yet" with a time already past is asked again on a timer, never in the same tick. */
const MIN_RETRY_AT_MS = 10;

/** What a budget that cannot answer grants: the query goes out (a budget must never stall every wait). */
const UNBUDGETED: PollGrant = { release: () => {} };

/** Whether a budget's answer is a grant: a `release` to call, or a time to ask again. */
function isGrant(answer: unknown): boolean {
  const grant = answer as Partial<Record<'release' | 'retryAt', unknown>> | null;
  return typeof grant === 'object' && grant !== null && (typeof grant.release === 'function' || Number.isFinite(grant.retryAt));
}

interface Entry {
  at: number;
  seq: number;
  /** Position in the heap, or -1 once it left it. */
  index: number;
  wake: (release: () => void) => void;
}

/** Call when the query's request has settled (answered, failed or aborted). Idempotent. */
export type ReleaseSlot = () => void;

/** A min-heap on (at, seq) whose entries know their index, so a cancelled one leaves at once. */
class EntryHeap {
  readonly #items: Entry[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): Entry | undefined {
    return this.#items[0];
  }

  push(entry: Entry): void {
    entry.index = this.#items.length;
    this.#items.push(entry);
    this.#up(entry.index);
  }

  pop(): Entry | undefined {
    const top = this.#items[0];
    if (top) this.remove(top);
    return top;
  }

  remove(entry: Entry): void {
    const i = entry.index;
    if (i < 0) return;
    const last = this.#items.pop() as Entry;
    entry.index = -1;
    if (last === entry) return;
    this.#items[i] = last;
    last.index = i;
    this.#up(i);
    this.#down(last.index);
  }

  /** How many entries are due at `now`, counting up to `cap` (only the due part of the heap is visited). */
  countDue(now: number, cap: number): number {
    let count = 0;
    const stack = [0];
    while (stack.length > 0 && count < cap) {
      const i = stack.pop() as number;
      const entry = this.#items[i];
      if (!entry || entry.at > now) continue;
      count++;
      stack.push(2 * i + 1, 2 * i + 2);
    }
    return count;
  }

  #less(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const a = this.#items[i] as Entry;
    const b = this.#items[j] as Entry;
    this.#items[i] = b;
    this.#items[j] = a;
    a.index = j;
    b.index = i;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#items[i] as Entry, this.#items[parent] as Entry)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < this.#items.length && this.#less(this.#items[left] as Entry, this.#items[smallest] as Entry)) smallest = left;
      if (right < this.#items.length && this.#less(this.#items[right] as Entry, this.#items[smallest] as Entry)) smallest = right;
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }
}

/** The shared scheduler of one client's waits. */
export class PollScheduler {
  readonly #budget: PollBudget;
  readonly #guard: PortGuard;
  // Two heaps: queries wait on the budget, plain wake-ups (deadlines) never do.
  readonly #queries = new EntryHeap();
  readonly #wakeUps = new EntryHeap();
  /** The budget said no query may start before this time. */
  #budgetFreeAt = Number.NEGATIVE_INFINITY;
  /** A budget that answers asynchronously (a fleet's) is asked one query at a time. */
  #asking = false;
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  /** `budget`: the query budget, or a number of queries per second for an in-memory one; `log` hears when it fails. */
  constructor(budget: PollBudget | number = DEFAULT_MAX_POLLS_PER_SECOND, log?: PortLog) {
    this.#budget = typeof budget === 'number' ? new MemoryPollBudget(budget) : budget;
    this.#guard = new PortGuard('the poll budget', log);
  }

  /** Most task queries the service sees from this budget in any one second. */
  get maxPerSecond(): number {
    return this.#budget.maxPerSecond;
  }

  /** Wake-ups waiting (for tests and leak checks). */
  get pending(): number {
    return this.#queries.size + this.#wakeUps.size;
  }

  /** `true` while the one timer is armed (for tests and leak checks). */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * Resolve at `at` (ms since the epoch) or later, once the budget allows a query, with the
   * function to call when the query's request has settled. Rejects with the signal's reason
   * the moment it aborts.
   */
  querySlot(at: number, signal?: AbortSignal): Promise<ReleaseSlot> {
    return this.#enqueue<ReleaseSlot>(this.#queries, at, signal);
  }

  /** Resolve at `at` (ms since the epoch), taking no query slot. */
  async wakeAt(at: number, signal?: AbortSignal): Promise<void> {
    await this.#enqueue<unknown>(this.#wakeUps, at, signal);
  }

  #enqueue<T>(heap: EntryHeap, at: number, signal: AbortSignal | undefined): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        heap.remove(entry);
        this.#arm();
        reject(signal?.reason);
      };
      const entry: Entry = {
        at,
        seq: this.#seq++,
        index: -1,
        wake: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release as T);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      heap.push(entry);
      this.#arm();
    });
  }

  #run = (): void => {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    for (let top = this.#wakeUps.peek(); top && top.at <= now; top = this.#wakeUps.peek()) {
      this.#wakeUps.pop();
      top.wake(() => {});
    }
    this.#serveQueries(now);
    this.#arm();
  };

  /** Due queries go out in order of due time while the budget allows. */
  #serveQueries(now: number): void {
    while (!this.#asking) {
      const top = this.#queries.peek();
      if (!top || top.at > now || this.#budgetFreeAt > now) return;
      // How many queries wait: a fleet's budget grants several in one round trip. A budget that
      // cannot answer (throws, hangs, answers junk) must not stall every wait: the query goes out.
      const due = this.#queries.countDue(now, this.#budget.maxPerSecond);
      const grant = this.#guard.call(() => this.#budget.take(now, due), { timeoutMs: PORT_TIMEOUT_MS, accept: isGrant, fallback: () => UNBUDGETED });
      if (isThenable(grant)) {
        this.#asking = true;
        void grant.then((answer) => this.#answered(answer));
        return;
      }
      if (!this.#grant(grant, now)) return;
    }
  }

  #answered(grant: PollGrant): void {
    this.#asking = false;
    const now = Date.now();
    if (this.#grant(grant, now)) this.#serveQueries(now);
    this.#arm();
  }

  /** Wake the earliest due query with a granted slot; `false` when there was none to give. */
  #grant(grant: PollGrant, now: number): boolean {
    // What isGrant let through: a release to call, or else a finite time.
    const { release: given, retryAt } = grant as { release?: unknown; retryAt?: number };
    if (typeof given !== 'function') {
      this.#budgetFreeAt = Math.min(Math.max(retryAt as number, now + MIN_RETRY_AT_MS), now + MAX_RETRY_AT_MS);
      return false;
    }
    const top = this.#queries.peek();
    const release = () => this.#guard.fire(() => Reflect.apply(given, grant, []));
    if (!top || top.at > now) {
      // The wait that asked left meanwhile (an async budget's answer came late).
      release();
      return false;
    }
    this.#queries.pop();
    let released = false;
    top.wake(() => {
      if (released) return;
      released = true;
      release();
      // The budget may allow the next query sooner now: ask again.
      this.#budgetFreeAt = Number.NEGATIVE_INFINITY;
      this.#arm();
    });
    return true;
  }

  /** Keep exactly one timer, set for the next moment something can happen. */
  #arm(): void {
    const query = this.#queries.peek();
    const wakeUp = this.#wakeUps.peek();
    // While an asynchronous budget is being asked, its answer re-arms: arming now would spin.
    const next = Math.min(
      query && !this.#asking ? Math.max(query.at, this.#budgetFreeAt) : Number.POSITIVE_INFINITY,
      wakeUp ? wakeUp.at : Number.POSITIVE_INFINITY,
    );
    if (next === this.#timerAt) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = next;
    if (next === Number.POSITIVE_INFINITY) return;
    // The clock is read once: read twice around a fractional due time, the second read could
    // be past it and arm a negative delay (Node warns with TimeoutNegativeWarning).
    const delay = next - Date.now();
    // Something due now (a first query sent at once) needs no timer: serve it after this tick.
    if (delay <= 0) queueMicrotask(this.#run);
    else this.#timer = setTimeout(this.#run, Math.min(delay, MAX_TIMER_MS));
  }
}
