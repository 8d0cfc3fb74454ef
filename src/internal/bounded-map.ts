/**
 * internal/: helpers with no domain words, used by every layer above; they import nothing
 * but each other.
 */

/**
 * A `Map` of at most `maxEntries` entries, least recently used out first, whose entries may
 * expire: the one bounded map under every in-memory store (callback dedupe, upload cache,
 * learned durations, the journal), so a long-running server stays bounded.
 *
 * Why a `Map`: it iterates in insertion order, so re-inserting on use makes it an LRU and its
 * first key is the one to drop.
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, { value: V; until: number }>();
  readonly #max: number;
  readonly #now: () => number;
  /**
   * The key used last, whose entry (if still held) is the `Map`'s last: using it again moves
   * nothing. A move is a delete and a set, and the `Map` keeps every deleted entry in its key's
   * hash chain until V8 rehashes the table: the same key moved again and again at a full bound
   * of 10,000 took 27 µs a set (a submission's two journal sets of one id, a hot entry's gets).
   */
  #newest: K | undefined;

  constructor(maxEntries: number, now: () => number = Date.now) {
    this.#max = Math.max(1, maxEntries);
    this.#now = now;
  }

  /** The value, unless absent or expired; a hit counts as a use. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (key !== this.#newest) {
      this.#entries.delete(key);
      this.#entries.set((this.#newest = key), entry);
    }
    if (entry.until > this.#now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /**
   * Set `key` (a use), for `ttlMs` (default: no expiry); the least recently used goes past the bound.
   *
   * Each drop takes a fresh `keys()`, which walks the deleted entries at the table's front
   * until V8 rehashes it (at a full bound of 10,000, 7.4-11.7 µs a set). An iterator kept from
   * drop to drop made it 1.0-1.8 µs but leaks: V8 keeps every table a parked iterator has not
   * walked past, and a map that churns below its bound rehashes without a drop (28 MB held
   * after 300,000 sets and deletes at 42 entries, issue 40). A linked list of
   * entries would make a drop O(1) without that.
   */
  set(key: K, value: V, ttlMs = Number.POSITIVE_INFINITY): this {
    // `set` of a key held keeps its place: the newest's is already last.
    if (key !== this.#newest) this.#entries.delete(key);
    this.#entries.set((this.#newest = key), { value, until: this.#now() + ttlMs });
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Entries held, expired ones included until they are next read. */
  get size(): number {
    return this.#entries.size;
  }

  /** Live entries, least recently used first. */
  *entries(): IterableIterator<[K, V]> {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.until > now) yield [key, entry.value];
  }
}

/** Keep a log to its last `max` items, `item` pushed last. */
export function appendBounded<T>(log: T[], item: T, max: number): void {
  log.push(item);
  if (log.length > max) log.splice(0, log.length - max);
}

/** Drop the first-inserted entries of `map` past `max`; the keys dropped, oldest first. */
export function dropOldest<K, V>(map: Map<K, V>, max: number): K[] {
  const dropped: K[] = [];
  for (const key of map.keys()) {
    if (map.size <= max) break;
    map.delete(key);
    dropped.push(key);
  }
  return dropped;
}
