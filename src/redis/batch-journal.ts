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
 * How long the lease on a batch's name outlives its holder's last renewal, in ms; renewed every
 * third of it while the batch runs. A run that died leaves the name free after this.
 */
const LEASE_MS = 15_000;

/** Take the lease KEYS[1] for ARGV[1] (ARGV[2] ms) unless another holds it: 1, or the holder's token. */
const LEASE_TAKE = `local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return holder end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;
/** Renew the lease KEYS[1] of ARGV[1] by ARGV[2] ms: 1, or 0 when ARGV[1] holds it no more. */
const LEASE_RENEW = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;
/** The fenced write: the entry ARGV[3] of job ARGV[2] into the hash KEYS[1], only while ARGV[1] holds the lease KEYS[2] (else 0). */
const FENCED_HSET = `if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1`;
/** Give the lease KEYS[1] up if ARGV[1] holds it. */
const LEASE_RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/** This holder's token: who it is, for the refusal of a second holder, and unique. */
function holderToken(): string {
  const host = typeof process !== 'undefined' ? `pid ${process.pid}` : 'a process';
  return `${host}, since ${new Date().toISOString()} (${globalThis.crypto.randomUUID().slice(0, 8)})`;
}

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
  /**
   * Hears the one warning given at the start of a batch when Redis cannot say an entry is on
   * disk once written (no append-only file, or `appendfsync` other than `always` on a Redis
   * without `WAITAOF`). Default `console`.
   */
  logger?: { warn(message: string): void };
}

/** The settings a journal is durable with, as the warning and the guide name them. */
const DURABLE_SETTINGS = 'appendonly yes with appendfsync always (or Redis 7.2+, whose WAITAOF the journal then waits on)';

/** How a write is made durable on this Redis: `waitaof` (each write waits for the AOF's fsync), `always` (fsynced before the reply), or `unknown`. */
type Persistence = 'waitaof' | 'always' | 'unknown';

/** What `INFO persistence`/`server` and `CONFIG GET appendfsync` say of how durable a write is. */
function persistenceOf(info: string, appendfsync: string | undefined): Persistence {
  if (!/^aof_enabled:1\s*$/m.test(info)) return 'unknown';
  const [major = 0, minor = 0] = (/^redis_version:(\d+)\.(\d+)/m.exec(info) ?? []).slice(1).map(Number);
  if (major > 7 || (major === 7 && minor >= 2)) return 'waitaof';
  return appendfsync === 'always' ? 'always' : 'unknown';
}

/**
 * The journal of one batch name, with one owner: a lease on the name (a key beside the hash,
 * in its slot) taken at the first read or write, renewed while the batch runs and given up at
 * `close`. Every write is fenced: it lands only while this holder has the lease (a script),
 * so a second holder refuses at once and a holder that lost its lease writes, and so sends,
 * nothing more.
 */
class RedisBatchJournal implements BatchJournal {
  readonly #driver: RedisDriver;
  readonly #key: string;
  readonly #lease: string;
  readonly #name: string;
  readonly #timeoutMs: number;
  readonly #token = holderToken();
  /** On a cluster, until a WAIT found no replica: each write waits for one. */
  #replicas: boolean;
  #held: Promise<void> | undefined;
  #renewal: ReturnType<typeof setInterval> | undefined;
  /** Why this holder lost the lease (every later write fails with it). */
  #lost: OmniMediaError | undefined;
  #persistence: Persistence = 'unknown';
  readonly #warn: (message: string) => void;

  constructor(driver: RedisDriver, key: string, name: string, timeoutMs: number, warn: (message: string) => void) {
    this.#warn = warn;
    this.#driver = driver;
    this.#replicas = driver.cluster;
    this.#key = key;
    this.#lease = `${key}:owner`;
    this.#name = name;
    this.#timeoutMs = timeoutMs;
  }

  /** The lease, once (again after `close`): a refusal naming the holder when another run has it. */
  #hold(): Promise<void> {
    this.#held ??= (async () => {
      const answer = await callPort(() => this.#driver.command(['EVAL', LEASE_TAKE, '1', this.#lease, this.#token, String(LEASE_MS)]), this.#bounds('the lease'));
      if (Number(answer) !== 1) {
        this.#held = undefined;
        throw new OmniMediaError(
          `batch journal "${this.#name}" is in use by another run (${String(answer)}): two runs on one journal could pay twice. ` +
            `It is free once that run ends, or ${LEASE_MS / 1000} s after it died (the key ${this.#lease})`,
        );
      }
      this.#lost = undefined;
      await this.#checkPersistence();
      this.#renewal = setInterval(() => void this.#renew(), LEASE_MS / 3);
      (this.#renewal as { unref?: () => void }).unref?.();
    })();
    return this.#held;
  }

  /** How this Redis makes a write durable; one warning when it cannot say (the batch goes on: the settings are the operator's). */
  async #checkPersistence(): Promise<void> {
    const ask = async (args: string[]): Promise<unknown> => {
      try {
        return await callPort(() => this.#driver.command(args), this.#bounds(args[0] as string));
      } catch {
        return undefined; // CONFIG turned off (a managed Redis): the warning says what to check
      }
    };
    const info = (await ask(['INFO', 'server'])) ?? '';
    const aof = (await ask(['INFO', 'persistence'])) ?? '';
    const fsync = await ask(['CONFIG', 'GET', 'appendfsync']);
    const list = Array.isArray(fsync) ? fsync.map(String) : fsync && typeof fsync === 'object' ? Object.entries(fsync).flat().map(String) : [];
    this.#persistence = persistenceOf(`${String(info)}\n${String(aof)}`, list[1]);
    if (this.#persistence === 'unknown')
      this.#warn(
        `[omnimedia] redisBatchJournal "${this.#name}": this Redis cannot say a journal entry is on disk when written ` +
          `(a Redis killed or restarted may lose entries, and a resume then pays for their jobs again). Use ${DURABLE_SETTINGS}.`,
      );
  }

  async #renew(): Promise<void> {
    try {
      const answer = await callPort(() => this.#driver.command(['EVAL', LEASE_RENEW, '1', this.#lease, this.#token, String(LEASE_MS)]), this.#bounds('the lease'));
      if (Number(answer) !== 1) this.#loseLease();
    } catch {
      // Redis did not answer: the next renewal tries again, and every write checks the lease itself.
    }
  }

  #loseLease(): void {
    this.#lost ??= new OmniMediaError(`batch journal "${this.#name}": this run lost its lease on the name (another run holds it, or it lapsed while this one was frozen): nothing more is sent`);
    clearInterval(this.#renewal);
  }

  async read(): Promise<BatchJournalEntry[]> {
    await this.#hold();
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
    await this.#hold();
    if (this.#lost) throw this.#lost;
    const args = ['EVAL', FENCED_HSET, '2', this.#key, this.#lease, this.#token, entry.id, JSON.stringify(entry)];
    // On a cluster with replicas an entry is written once a replica has it too: a failover
    // right after loses no `sending` entry (whose loss would let a resume submit the job
    // again). A master without replicas answers WAIT with 0: then plain writes.
    let written: unknown;
    if (!this.#replicas) written = await callPort(() => this.#driver.command(args), this.#bounds('HSET'));
    else {
      const [answer, replicas] = (await callPort(() => this.#driver.replicated(args, 1, REPLICA_WAIT_MS), this.#bounds('HSET'))) as [unknown, number];
      written = answer;
      if (replicas === 0) this.#replicas = false;
    }
    if (Number(written) !== 1) {
      this.#loseLease();
      throw this.#lost;
    }
    // The entry is durable once the append-only file holding it is fsynced here.
    if (this.#persistence === 'waitaof') {
      const [local] = (await callPort(() => this.#driver.command(['WAITAOF', '1', '0', String(this.#timeoutMs)]), this.#bounds('WAITAOF'))) as [unknown, unknown];
      if (Number(local) < 1) throw new OmniMediaError(`batch journal "${this.#name}": Redis did not fsync the entry of job ${entry.id} within ${this.#timeoutMs} ms (WAITAOF)`);
    }
  }

  /** Give the lease up: the batch ended. */
  async close(): Promise<void> {
    clearInterval(this.#renewal);
    const held = this.#held;
    this.#held = undefined;
    if (!held || !(await held.then(() => true, () => false))) return;
    try {
      await callPort(() => this.#driver.command(['EVAL', LEASE_RELEASE, '1', this.#lease, this.#token]), this.#bounds('the lease'));
    } catch {
      // Redis did not answer: the lease lapses by itself within LEASE_MS.
    }
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
  const logger = options.logger ?? console;
  return new RedisBatchJournal(driverOf(redis), `${prefix}{batch:${name.replaceAll('}', '_')}}`, name, timeoutMs, (message) => logger.warn(message));
}
