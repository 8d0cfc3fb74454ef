import { MemoryDurationsStore, MAX_REMEMBERED_KINDS } from '../coordination/memory.ts';
import type { DurationsStore } from '../coordination/ports.ts';
import { BoundedMap } from '../internal/bounded-map.ts';
import { replyList } from './driver.ts';
import type { Outage } from './outage.ts';
import { DURATION_ADD } from './scripts.ts';

const KEEP_MS = 30 * 24 * 3_600_000;
/**
 * What the fleet learned is read again after this long: every wait asks for it at each of its
 * queries (it times the next one), and it changes by one sample per ended task.
 */
const FRESH_MS = 10_000;
/** Samples of one kind sent at once when this many wait (else at the next heartbeat). */
const BATCH = 50;

/** What the durations need of their coordination. */
export interface DurationsPorts {
  command(...args: (string | number)[]): Promise<unknown>;
  fire(op: () => Promise<unknown>): void;
  outage: Outage;
  key(kind: string): string;
}

/**
 * Learned durations on Redis: one list per kind (the last `keep` samples, a month). Read at
 * most every 10 s per kind (this instance's own new samples added meanwhile), written a batch
 * per kind per heartbeat: one script however many tasks ended, not one per task.
 */
export class RedisDurations implements DurationsStore {
  readonly #ports: DurationsPorts;
  readonly #seen = new BoundedMap<string, number[]>(MAX_REMEMBERED_KINDS);
  readonly #unsent = new Map<string, { samples: number[]; keep: number }>();
  readonly #fallback = new MemoryDurationsStore();

  constructor(ports: DurationsPorts) {
    this.#ports = ports;
  }

  async get(kind: string): Promise<readonly number[] | undefined> {
    const seen = this.#seen.get(kind);
    if (seen) return seen.length ? seen : undefined;
    return this.#ports.outage.run(
      async () => {
        const samples = replyList(await this.#ports.command('LRANGE', this.#ports.key(kind), 0, -1)).map(Number);
        const unsent = this.#unsent.get(kind);
        if (unsent) samples.push(...unsent.samples.slice(-unsent.keep));
        if (unsent && samples.length > unsent.keep) samples.splice(0, samples.length - unsent.keep);
        // None yet: asked again sooner, the first samples come any moment.
        this.#seen.set(kind, samples, samples.length > 0 ? FRESH_MS : FRESH_MS / 10);
        return samples.length ? samples : undefined;
      },
      () => this.#fallback.get(kind),
    );
  }

  add(kind: string, ms: number, keep: number): void {
    this.#fallback.add(kind, ms, keep);
    const seen = this.#seen.get(kind);
    if (seen) {
      seen.push(ms);
      if (seen.length > keep) seen.splice(0, seen.length - keep);
    }
    const unsent = this.#unsent.get(kind) ?? { samples: [], keep };
    unsent.samples.push(ms);
    unsent.keep = keep;
    this.#unsent.set(kind, unsent);
    if (unsent.samples.length >= BATCH) this.flush();
  }

  /** Send the samples learned since the last flush: one script per kind. */
  flush(): void {
    for (const [kind, { samples, keep }] of this.#unsent) {
      this.#unsent.delete(kind);
      const sent = samples.slice(-keep);
      this.#ports.fire(() => this.#ports.command('EVAL', DURATION_ADD, 1, this.#ports.key(kind), keep, KEEP_MS, ...sent));
    }
  }
}
