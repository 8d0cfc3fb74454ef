/**
 * A batch's journal on Redis: one hash per batch, job id to its last entry, so that a batch
 * resumed on any machine (another worker, a restarted container) submits no job twice.
 */
import type { BatchJournal, BatchJournalEntry } from '../coordination/batch-journal.ts';
import { OmniMediaError, ValidationError } from '../errors.ts';
import { errorText } from '../internal/error-text.ts';
import { callPort, PortTimeout, type PortCall } from '../internal/port-call.ts';
import { DEFAULT_REDIS_PREFIX } from '../options.ts';
import { driverOf, storedJson, type RedisClientLike, type RedisDriver } from './driver.ts';

/** Fields HSCAN is asked for at a time: a resume reads the journal a page at a time. */
const PAGE = 500;
/** Longest wait for one journal command (a batch sends nothing until its entry is written). */
const DEFAULT_JOURNAL_TIMEOUT_MS = 5_000;
/** How long a write waits for a replica to have it (WAIT), in ms. */
const REPLICA_WAIT_MS = 200;

/**
 * Options of {@link redisBatchJournal}.
 *
 * @example
 * ```ts
 * const journal = redisBatchJournal(redis, { name: 'catalogue-2026-05', prefix: 'media:' });
 * ```
 */
export interface RedisBatchJournalOptions {
  /** The batch's name: the same name resumes the same batch. */
  name: string;
  /** Prefix of the key. Default `omnimedia:`. */
  prefix?: string;
  /** Longest wait for one Redis command, in ms; then the write fails and the batch stops submitting. Default 5,000. */
  timeoutMs?: number;
}

class RedisBatchJournal implements BatchJournal {
  readonly #driver: RedisDriver;
  readonly #key: string;
  readonly #timeoutMs: number;
  /** On a cluster, until a WAIT found no replica: each write waits for one. */
  #replicas: boolean;

  constructor(driver: RedisDriver, key: string, timeoutMs: number) {
    this.#driver = driver;
    this.#replicas = driver.cluster;
    this.#key = key;
    this.#timeoutMs = timeoutMs;
  }

  async read(): Promise<BatchJournalEntry[]> {
    const entries: BatchJournalEntry[] = [];
    let cursor = '0';
    do {
      const args = ['HSCAN', this.#key, cursor, 'COUNT', String(PAGE)];
      const [next, items] = (await callPort(() => this.#driver.command(args), this.#bounds('HSCAN'))) as [unknown, string[]];
      cursor = String(next);
      for (let i = 1; i < items.length; i += 2) {
        const entry = storedJson<Partial<BatchJournalEntry>>(items[i]);
        if (typeof entry?.id === 'string' && typeof entry.state === 'string') entries.push(entry as BatchJournalEntry);
      }
    } while (cursor !== '0');
    return entries;
  }

  async write(entry: BatchJournalEntry): Promise<void> {
    const args = ['HSET', this.#key, entry.id, JSON.stringify(entry)];
    // On a cluster with replicas an entry is written once a replica has it too: a failover
    // right after loses no `sending` entry (whose loss would let a resume submit the job
    // again). A master without replicas answers WAIT with 0: then plain writes.
    if (!this.#replicas) return void (await callPort(() => this.#driver.command(args), this.#bounds('HSET')));
    const [, replicas] = (await callPort(() => this.#driver.replicated(args, 1, REPLICA_WAIT_MS), this.#bounds('HSET'))) as [unknown, number];
    if (replicas === 0) this.#replicas = false;
  }

  /** One command through the port boundary, within the time limit; an `OmniMediaError` when Redis cannot answer (the batch stops submitting). */
  #bounds(what: string): PortCall<unknown, never> {
    return {
      timeoutMs: this.#timeoutMs,
      fallback: (why) => {
        if (why instanceof PortTimeout) throw new OmniMediaError(`batch journal: Redis did not answer ${what} within ${this.#timeoutMs} ms`);
        throw new OmniMediaError(`batch journal: Redis failed ${what} (${errorText(why)})`, { cause: why });
      },
    };
  }
}

/**
 * A `BatchJournal` on Redis (a hash `{prefix}{batch:<name>}`, one field per job): give it to
 * `client.batch(jobs, { journal })`, and a batch resumed anywhere that reaches the same Redis
 * (a single node or a cluster: one key, so one slot) submits no job twice. Entries are kept
 * until you delete the key.
 *
 * @example
 * ```ts
 * import { redisBatchJournal } from 'omnimedia/redis';
 *
 * const journal = redisBatchJournal(redis, { name: 'catalogue-2026-05' });
 * for await (const line of client.batch('jobs.jsonl', { journal })) console.log(line.id, line.status);
 * ```
 */
export function redisBatchJournal(redis: RedisClientLike, options: RedisBatchJournalOptions): BatchJournal {
  const name = (options as Partial<RedisBatchJournalOptions> | undefined)?.name;
  if (typeof name !== 'string' || name === '')
    throw new ValidationError([{ path: 'name', message: 'must be a non-empty string: the batch\'s name' }], 'redisBatchJournal');
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  const timeoutMs = options.timeoutMs ?? DEFAULT_JOURNAL_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new ValidationError([{ path: 'timeoutMs', message: 'must be a whole number of ms from 1' }], 'redisBatchJournal');
  // A hash tag of its own: on a cluster the batch's one key sits where its name hashes.
  return new RedisBatchJournal(driverOf(redis), `${prefix}{batch:${name.replaceAll('}', '_')}}`, timeoutMs);
}
