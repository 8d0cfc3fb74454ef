import type { JournalEntry, SubmissionJournal } from '../coordination/ports.ts';
import { OmniMediaError } from '../errors.ts';
import { BoundedMap } from '../internal/bounded-map.ts';
import { storedJson } from './driver.ts';
import type { Outage } from './outage.ts';
import { JOURNAL_ADOPT, JOURNAL_CLEAR, JOURNAL_RECORD, JOURNAL_RELEASE } from './scripts.ts';

const DAY_MS = 24 * 3_600_000;
/** Fields HSCAN is asked for at a time: `pending()` holds a page, never the whole journal. */
const PAGE = 500;
/** A journal write made while Redis was down that is a clear. */
const CLEARED = 'cleared';

/** What the journal needs of its coordination. */
export interface JournalPorts {
  command(...args: (string | number)[]): Promise<unknown>;
  /** `{prefix}name`. */
  key(name: string): string;
  outage: Outage;
  instanceId: string;
}

interface Stored extends JournalEntry {
  /** The instance that owns it (it submitted, or last waited on it); `''` when nobody does. */
  owner?: string;
}

/**
 * The journal of accepted submissions on Redis: a hash `{prefix}journal` (task id to entry, the
 * entry naming its owner) and its index by submission time `{prefix}journal:at`, by which
 * every record drops the entries past the 24 h horizon, so the journal stays bounded. Reads go
 * a page at a time (HSCAN). Every script is given the keys it touches (Redis Cluster).
 */
export class RedisJournal implements SubmissionJournal {
  readonly #ports: JournalPorts;
  /** Writes made while Redis was down (at most 10,000), sent when it is back. */
  readonly #backlog = new BoundedMap<string, JournalEntry | typeof CLEARED>(10_000);
  /** Waits of this instance per task: the entry is given up when the last one ends without the result. */
  readonly #waits = new Map<string, number>();

  constructor(ports: JournalPorts) {
    this.#ports = ports;
  }

  record(entry: JournalEntry): Promise<void> {
    this.#backlog.delete(entry.task_id);
    return this.#ports.outage.run(
      () => this.#write(entry),
      // Redis down: written when it is back, so a crash after that still loses no task.
      () => void this.#backlog.set(entry.task_id, entry),
    );
  }

  adopt(taskId: string): Promise<void> {
    this.#waits.set(taskId, (this.#waits.get(taskId) ?? 0) + 1);
    return this.#entry(JOURNAL_ADOPT, taskId);
  }

  release(taskId: string): Promise<void> {
    const waits = (this.#waits.get(taskId) ?? 1) - 1;
    if (waits > 0) return Promise.resolve(void this.#waits.set(taskId, waits));
    this.#waits.delete(taskId);
    return this.#entry(JOURNAL_RELEASE, taskId);
  }

  clear(taskId: string): Promise<void> {
    this.#backlog.delete(taskId);
    this.#waits.delete(taskId);
    return this.#ports.outage.run(
      () => this.#clear([taskId]),
      () => void this.#backlog.set(taskId, CLEARED),
    );
  }

  list(): Promise<JournalEntry[]> {
    return this.#scan(false);
  }

  pending(): Promise<JournalEntry[]> {
    return this.#scan(true);
  }

  /** Send the writes made while Redis was down; each leaves the backlog once Redis has it. */
  flush(): void {
    for (const [taskId, write] of [...this.#backlog.entries()]) {
      this.#ports.outage.fire(async () => {
        await (write === CLEARED ? this.#clear([taskId]) : this.#write(write));
        if (this.#backlog.get(taskId) === write) this.#backlog.delete(taskId);
      });
    }
  }

  get #keys(): [number, string, string] {
    return [2, this.#ports.key('journal'), this.#ports.key('journal:at')];
  }

  async #write(entry: JournalEntry): Promise<void> {
    const value = JSON.stringify({ ...entry, owner: this.#ports.instanceId });
    await this.#ports.command('EVAL', JOURNAL_RECORD, ...this.#keys, entry.task_id, value, entry.submitted_at, Date.now() - DAY_MS);
  }

  async #clear(taskIds: string[]): Promise<void> {
    await this.#ports.command('EVAL', JOURNAL_CLEAR, ...this.#keys, ...taskIds);
  }

  /** Run a script on the entry of `taskId` (adopt it, give it up); nothing while Redis is down. */
  #entry(script: string, taskId: string): Promise<void> {
    return this.#ports.outage.run(
      async () => void (await this.#ports.command('EVAL', script, 1, this.#ports.key('journal'), taskId, this.#ports.instanceId)),
      () => undefined,
    );
  }

  /**
   * Every entry (`pending`: those nobody waits on: no owner, or an owner whose liveness key
   * expired), a page of HSCAN at a time, dropping what is past the horizon on the way. An
   * `OmniMediaError` when Redis cannot answer: a caller must not take "none" for an answer.
   */
  async #scan(pending: boolean): Promise<JournalEntry[]> {
    const { key } = this.#ports;
    const found = new Map<string, JournalEntry>();
    const alive = new Map<string, boolean>();
    const horizon = Date.now() - DAY_MS;
    let cursor = '0';
    do {
      const [next, items] = (await this.#ask('HSCAN', key('journal'), cursor, 'COUNT', PAGE)) as [unknown, string[]];
      cursor = String(next);
      const page: Stored[] = [];
      const stale: string[] = [];
      for (let i = 1; i < items.length; i += 2) {
        const entry = storedJson<Partial<Stored>>(items[i]);
        // What is not one of ours is skipped.
        if (typeof entry?.task_id !== 'string' || typeof entry.kind !== 'string' || typeof entry.submitted_at !== 'number') continue;
        if (entry.submitted_at < horizon) stale.push(items[i - 1] as string);
        else page.push(entry as Stored);
      }
      if (stale.length > 0) await this.#ask('EVAL', JOURNAL_CLEAR, ...this.#keys, ...stale);
      const unknown = pending ? [...new Set(page.map((e) => e.owner ?? ''))].filter((owner) => owner && !alive.has(owner)) : [];
      if (unknown.length > 0) {
        const values = (await this.#ask('MGET', ...unknown.map((owner) => key(`instance:${owner}`)))) as unknown[];
        unknown.forEach((owner, i) => alive.set(owner, values[i] !== null && values[i] !== undefined));
      }
      for (const { task_id, kind, submitted_at, owner } of page)
        if (!pending || !owner || !alive.get(owner)) found.set(task_id, { task_id, kind, submitted_at });
    } while (cursor !== '0');
    return [...found.values()];
  }

  /** A command whose answer the caller needs: an `OmniMediaError` when Redis cannot give it. */
  async #ask(...args: (string | number)[]): Promise<unknown> {
    const failed = Symbol('failed');
    const reply = await this.#ports.outage.run<unknown>(() => this.#ports.command(...args), () => failed);
    if (reply === failed) throw new OmniMediaError('The journal is on Redis, which cannot be reached now: try again when it is back');
    return reply;
  }
}
