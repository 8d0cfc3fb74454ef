/**
 * One queue of wake-ups for all the waits of a client, under one request-rate cap.
 *
 * Why: 1,000 concurrent waits must neither hold 1,000 timers nor send their queries whenever
 * each pleases. Every wait asks the scheduler for a query slot at a time; the scheduler keeps
 * all requests in one binary heap, arms a single timer for the earliest, and hands out slots
 * under the cap. Queries held back by the cap go out in order of their due time as soon as
 * the cap allows, so waits that were kept waiting are served first, and each wait then times
 * its next query from when it really ran.
 *
 * The cap holds where it matters, at the service: a query may start only once the query
 * `maxPerSecond` places before it, and every one before that, was answered at least one
 * second ago. A request reaches the service between its start and its answer, so however
 * late the event loop or the network delivers requests, the service never sees more than
 * `maxPerSecond` of them within one second. (A query unanswered after 5 s stops counting,
 * so a hung request cannot stall every wait; by then it has long reached the service.)
 *
 * Deadline wake-ups share the one timer but take no slot: a deadline never waits on
 * the rate cap.
 */

/** Default request-rate cap of the task queries of one client, per second. */
export const DEFAULT_MAX_POLLS_PER_SECOND = 20;

const WINDOW_MS = 1_000;
const MAX_HOLD_MS = 5_000;
// setTimeout fires at once beyond this (about 24.8 days); longer waits re-arm on the way.
const MAX_TIMER_MS = 2_147_483_647;

interface Entry {
  at: number;
  seq: number;
  /** Position in the heap, or -1 once it left it. */
  index: number;
  wake: (release: () => void) => void;
}

/** One query handed out. */
interface Slot {
  /**
   * When it stops counting: its answer, but no later than `MAX_HOLD_MS` after its start (a
   * request reaches the service long before that), so one hung request cannot stall the rest.
   */
  end: number;
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
  /** Most task queries the service sees from this client in any one second. */
  readonly maxPerSecond: number;
  // Two heaps: queries wait on the cap, plain wake-ups (deadlines) never do.
  readonly #queries = new EntryHeap();
  readonly #wakeUps = new EntryHeap();
  /** The last `maxPerSecond` slots, oldest at `#head` (a ring). */
  readonly #recent: Slot[] = [];
  #head = 0;
  /** Latest end among the slots that left the ring. */
  #retiredEnd = Number.NEGATIVE_INFINITY;
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(maxPerSecond: number = DEFAULT_MAX_POLLS_PER_SECOND) {
    if (!Number.isInteger(maxPerSecond) || maxPerSecond < 1)
      throw new RangeError(`maxPollsPerSecond must be a positive integer (got ${String(maxPerSecond)})`);
    this.maxPerSecond = maxPerSecond;
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
   * Resolve at `at` (ms since the epoch) or later, once a query slot is free under the cap,
   * with the function to call when the query's request has settled. Rejects with the
   * signal's reason the moment it aborts.
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

  /**
   * When the next query may start: one second after the query `maxPerSecond` places back,
   * and every earlier one, was answered.
   */
  #slotFreeAt(): number {
    if (this.#recent.length < this.maxPerSecond) return Number.NEGATIVE_INFINITY;
    const oldest = this.#recent[this.#head] as Slot;
    return Math.max(this.#retiredEnd, oldest.end) + WINDOW_MS;
  }

  #takeSlot(now: number): ReleaseSlot {
    const slot: Slot = { end: now + MAX_HOLD_MS };
    if (this.#recent.length < this.maxPerSecond) this.#recent.push(slot);
    else {
      // A slot retired while in flight keeps its provisional end: later than its answer, so safe.
      this.#retiredEnd = Math.max(this.#retiredEnd, (this.#recent[this.#head] as Slot).end);
      this.#recent[this.#head] = slot;
      this.#head = (this.#head + 1) % this.maxPerSecond;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      slot.end = Math.min(slot.end, Date.now());
      this.#arm();
    };
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
    // Due queries go out in order of due time while the window has room.
    for (let top = this.#queries.peek(); top && top.at <= now && this.#slotFreeAt() <= now; top = this.#queries.peek()) {
      this.#queries.pop();
      top.wake(this.#takeSlot(now));
    }
    this.#arm();
  };

  /** Keep exactly one timer, set for the next moment something can happen. */
  #arm(): void {
    const query = this.#queries.peek();
    const wakeUp = this.#wakeUps.peek();
    const next = Math.min(
      query ? Math.max(query.at, this.#slotFreeAt()) : Number.POSITIVE_INFINITY,
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
