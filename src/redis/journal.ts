import type { JournalEntry, SubmissionJournal } from '../coordination/ports.ts';
import { OmniMediaError } from '../errors.ts';
import { BoundedMap } from '../internal/bounded-map.ts';
import { storedJson } from './driver.ts';
import type { Liveness } from './liveness.ts';
import type { Outage } from './outage.ts';
import { JOURNAL_ADOPT, JOURNAL_CLEAR, JOURNAL_DROP, JOURNAL_RECORD, JOURNAL_RELEASE } from './scripts.ts';

const DAY_MS = 24 * 3_600_000;
/** Fields HSCAN is asked for at a time: `pending()` holds a page, never the whole journal. */
const PAGE = 500;
/** A journal write made while Redis was down that is a clear. */
const CLEARED = 'cleared';
/** One record in this many also drops the entries past the horizon (up to 1,000): bounded, at a fraction of a command per record. */
const TRIM_EVERY = 16;
/** Entries recorded here that no wait of this instance gave up: adopting one again needs no command (bounded). */
const OWN_MAX = 10_000;

/** What the journal needs of its coordination. */
export interface JournalPorts {
  command(...args: (string | number)[]): Promise<unknown>;
  /**
   * A write (or, with no words, nothing), then on a cluster whose master has replicas in sync
   * `WAIT` for one: how many replicas have every write so far, or `undefined` when not asked.
   */
  replicated(...args: (string | number)[]): Promise<number | undefined>;
  /** The journal's keys (one slot, `{journal}`): `journal`, what was submitted `journal:sub`, and their index `journal:at`. */
  key(name: 'journal' | 'journal:at' | 'journal:sub'): string;
  outage: Outage;
  liveness: Liveness;
  instanceId: string;
}

interface Stored extends JournalEntry {
  /** The instance that owns it (it submitted, or last waited on it); `''` when nobody does. */
  owner?: string;
}

/**
 * The journal of accepted submissions on Redis: a hash `{prefix}{journal}` (task id to entry,
 * the entry naming its owner) and its index by submission time `{prefix}{journal}:at` (one
 * slot), by which records drop the entries past the 24 h horizon, so the journal stays
 * bounded. Reads go a page at a time (HSCAN). On a cluster a record is acknowledged once a
 * replica has it too (`WAIT`), so a failover right after loses no acknowledged entry; one no
 * replica confirmed in time is written again at the next heartbeat until one does.
 */
export class RedisJournal implements SubmissionJournal {
  readonly #ports: JournalPorts;
  /** Writes made while Redis was down (at most 10,000), sent when it is back. */
  readonly #backlog = new BoundedMap<string, JournalEntry | typeof CLEARED>(10_000);
  /** Waits of this instance per task: the entry is given up when the last one ends without the result. */
  readonly #waits = new Map<string, number>();
  /**
   * Entries written on the journal's master that no replica confirmed yet (a `WAIT` that timed
   * out): a later confirmation covers them (WAIT counts every earlier write of the connection);
   * after an outage (a failover may have lost them) they are written again.
   */
  readonly #unconfirmed = new Map<string, JournalEntry>();
  /** Entries this instance recorded and still owns on Redis: its own waits adopt them for free. */
  readonly #own = new BoundedMap<string, true>(OWN_MAX);
  /** What this instance submitted lately: `find` answers them without a command (bounded). */
  readonly #submitted = new BoundedMap<string, JournalEntry>(OWN_MAX);
  #records = 0;

  constructor(ports: JournalPorts) {
    this.#ports = ports;
  }

  record(entry: JournalEntry): Promise<void> {
    this.#backlog.delete(entry.task_id);
    this.#submitted.set(entry.task_id, entry, DAY_MS);
    return this.#ports.outage.run(
      () => this.#write(entry),
      // Redis down: written when it is back, so a crash after that still loses no task.
      () => void this.#backlog.set(entry.task_id, entry),
    );
  }

  adopt(taskId: string): Promise<void> {
    this.#waits.set(taskId, (this.#waits.get(taskId) ?? 0) + 1);
    // The entry names this instance already (it recorded it; no wait of it gave it up).
    if (this.#own.has(taskId)) return Promise.resolve();
    return this.#entry(JOURNAL_ADOPT, taskId);
  }

  release(taskId: string): Promise<void> {
    const waits = (this.#waits.get(taskId) ?? 1) - 1;
    if (waits > 0) return Promise.resolve(void this.#waits.set(taskId, waits));
    this.#waits.delete(taskId);
    this.#own.delete(taskId);
    return this.#entry(JOURNAL_RELEASE, taskId);
  }

  clear(taskId: string): Promise<void> {
    this.#backlog.delete(taskId);
    this.#unconfirmed.delete(taskId);
    this.#waits.delete(taskId);
    this.#own.delete(taskId);
    return this.#ports.outage.run(
      () => this.#clear([taskId]),
      () => void this.#backlog.set(taskId, CLEARED),
    );
  }

  list(): Promise<JournalEntry[]> {
    return this.#scan(false);
  }

  /**
   * What was submitted as `taskId` (by any instance, in the last 24 h, its result seen or not);
   * an `OmniMediaError` when Redis cannot say (a caller must not take "unknown" for an answer).
   */
  async find(taskId: string): Promise<JournalEntry | undefined> {
    const mine = this.#submitted.get(taskId);
    if (mine) return mine;
    const entry = storedJson<Partial<JournalEntry>>(await this.#ask('HGET', this.#ports.key('journal:sub'), taskId));
    return entry && typeof entry.kind === 'string' && typeof entry.submitted_at === 'number' ? { ...(entry as JournalEntry), task_id: taskId } : undefined;
  }

  pending(): Promise<JournalEntry[]> {
    return this.#scan(true);
  }

  /**
   * At each heartbeat: send the writes made while Redis was down (each leaves the backlog once
   * Redis has it), and ask a replica to confirm the entries none confirmed yet.
   */
  flush(): void {
    for (const [taskId, write] of [...this.#backlog.entries()]) {
      this.#ports.outage.fire(async () => {
        await (write === CLEARED ? this.#clear([taskId]) : this.#write(write));
        if (this.#backlog.get(taskId) === write) this.#backlog.delete(taskId);
      });
    }
    if (this.#unconfirmed.size > 0) {
      const confirming = [...this.#unconfirmed.keys()];
      this.#ports.outage.fire(async () => {
        if (((await this.#ports.replicated()) ?? 0) > 0) for (const taskId of confirming) this.#unconfirmed.delete(taskId);
      });
    }
  }

  /** Back from an outage: the entries no replica had confirmed may have gone with a master; written again. */
  resume(): void {
    for (const [taskId, entry] of this.#unconfirmed.entries()) if (!this.#backlog.get(taskId)) this.#backlog.set(taskId, entry);
    this.#unconfirmed.clear();
    this.flush();
  }

  get #keys(): [number, string, string, string] {
    return [3, this.#ports.key('journal'), this.#ports.key('journal:at'), this.#ports.key('journal:sub')];
  }

  async #write(entry: JournalEntry): Promise<void> {
    const value = JSON.stringify({ ...entry, owner: this.#ports.instanceId });
    const trim = this.#records++ % TRIM_EVERY === 0 ? [Date.now() - DAY_MS] : [];
    await this.#ports.liveness.started;
    const replicas = await this.#ports.replicated('EVAL', JOURNAL_RECORD, ...this.#keys, entry.task_id, value, entry.submitted_at, ...trim);
    this.#own.set(entry.task_id, true);
    if (replicas === 0) {
      this.#unconfirmed.set(entry.task_id, entry);
      if (this.#unconfirmed.size > 10_000) this.#unconfirmed.delete(this.#unconfirmed.keys().next().value as string);
    }
    // A replica has this write, and every earlier one of the connection.
    else if (replicas !== undefined) this.#unconfirmed.clear();
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
    const { liveness } = this.#ports;
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
      if (stale.length > 0) await this.#ask('EVAL', JOURNAL_DROP, ...this.#keys, ...stale);
      // Owners the last heartbeat saw alive are; the others are asked in one script.
      const owners = pending ? [...new Set(page.map((e) => e.owner ?? ''))].filter((owner) => owner && !alive.has(owner)) : [];
      const unknown: string[] = [];
      for (const owner of owners) if (liveness.state(owner) === 'alive') alive.set(owner, true);
      else unknown.push(owner);
      if (unknown.length > 0) {
        const answer = await this.#ports.outage.run(() => liveness.check(unknown), () => undefined);
        if (!answer) throw new OmniMediaError('The journal is on Redis, which cannot be reached now: try again when it is back');
        for (const [owner, lives] of answer) alive.set(owner, lives);
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
