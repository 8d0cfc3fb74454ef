/**
 * Where the coordination's state lives: its key layout, the same on one Redis and on a cluster
 * (one wire format for every instance, node-redis or ioredis, single node or cluster).
 *
 * Each fleet-wide structure has a hash tag of its own after the prefix: the journal, its index
 * and what was submitted `{journal}` (one slot: its scripts read them together), the live set
 * `{live}`, the query budget `{budget}`, the channel `{events}`; so every script's keys lie in one slot, and the fleet's
 * load spreads over up to four masters. Per-task state (leases, callback claims, results) and
 * the caches (uploads, durations, rate limits) are one key per command, each where its own
 * hash puts it: spread over the masters. A prefix with a hash tag of its own (`{omnimedia}:`)
 * puts every key in that one slot instead. The measurements behind the choice:
 * docs/fleets.md, "Redis Cluster".
 */
export class KeyLayout {
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** A fleet-wide key (or the channel), in the slot of its structure's tag. */
  shared(name: 'journal' | 'journal:at' | 'journal:sub' | 'live' | 'budget' | 'events'): string {
    return name.startsWith('journal:') ? `${this.#prefix}{journal}:${name.slice('journal:'.length)}` : `${this.#prefix}{${name}}`;
  }

  /** A key of its own: `name` hashed as it is (a task's lease, a claim, a cached upload...). */
  own(name: string): string {
    return `${this.#prefix}${name}`;
  }
}

/**
 * The hash slot of a key, as Redis Cluster computes it: CRC16 (XMODEM) of the key, or of its
 * hash tag (what is between the first `{` and the next `}`, when not empty), modulo 16384.
 * The coordination uses it to pick a key in each master's slots when it checks, after a
 * failover, that every master answers through the caller's client.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of new TextEncoder().encode(key)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16_384;
}
