/**
 * The journal of a batch (`client.batch()`, `omnimedia batch`, `omnimedia/bullmq`): where each
 * job stands, written before its submission is sent and after each answer, so that a batch
 * run again after any crash submits no job twice. The port, and its in-memory store.
 */
import type { BatchOperation, BatchResult } from '../schemas/batch.ts';

/**
 * Where a job stands, as its last journal entry says:
 * - `sending`: its submission is about to be sent. Found on a resume, the submission went out
 *   with no answer received: the job is `unknown` (the task may exist, and be billed).
 * - `unsent`: the service surely did not take the submission (429, 503, a connection that
 *   failed before sending): it may be sent again.
 * - `submitted`: the service accepted it: `task_id` is the task to wait on.
 * - `finished`: `result` is the job's result line, not yet handed to the caller.
 * - `delivered`: the result line was handed over; a resumed batch skips the job.
 *
 * @example
 * ```ts
 * const state: BatchJobState = 'submitted';
 * ```
 */
export type BatchJobState = 'sending' | 'unsent' | 'submitted' | 'finished' | 'delivered';

/** Every {@link BatchJobState}: a journal's closed set (an entry in any other state is not an entry of this journal). */
const JOB_STATES: ReadonlySet<string> = new Set<BatchJobState>(['sending', 'unsent', 'submitted', 'finished', 'delivered']);

/** `true` when `state` is one of the {@link BatchJobState}s. */
export function isJobState(state: unknown): state is BatchJobState {
  return typeof state === 'string' && JOB_STATES.has(state);
}

/**
 * One job's entry in a batch journal: the last one written for an `id` is where it stands.
 *
 * @example
 * ```ts
 * const entry: BatchJournalEntry = { id: 'hero-1', state: 'submitted', at: Date.now(), op: 'images.generate', task_id: 'task_123' };
 * ```
 */
export interface BatchJournalEntry {
  /** The job's id. */
  id: string;
  /** Where it stands; see {@link BatchJobState}. */
  state: BatchJobState;
  /** When the entry was written, in ms since the epoch. */
  at: number;
  /** What the job submits (on `sending`, `unsent` and `submitted`): its wait's deadline follows from it. */
  op?: BatchOperation;
  /** The task (on `submitted`; on `finished` and `delivered` in `result`). */
  task_id?: string;
  /** The result line (on `finished` and `delivered`). */
  result?: BatchResult;
  /** On `unsent` after a 429 or 503: when the service said it may be sent again (ms since the epoch, from its `Retry-After`); a resume waits until then. */
  retry_at?: number;
}

/**
 * Where a batch keeps its journal: a file (`journal: 'out/journal.jsonl'` in Node), the
 * in-memory {@link MemoryBatchJournal}, Redis (`redisBatchJournal` in `omnimedia/redis`), or
 * your own store. `write` must resolve only once the entry is durable (a file: flushed to
 * disk): the batch sends a submission only after its `sending` entry is written.
 *
 * @example
 * ```ts
 * const rows = new Map<string, BatchJournalEntry>();
 * const journal: BatchJournal = {
 *   read: () => [...rows.values()],
 *   write: (entry) => void rows.set(entry.id, entry),
 * };
 * for await (const line of client.batch(jobs, { journal })) console.log(line.id, line.status);
 * ```
 */
export interface BatchJournal {
  /** The last entry written for each job id, in any order. */
  read(): readonly BatchJournalEntry[] | PromiseLike<readonly BatchJournalEntry[]>;
  /** Record `entry` as where its job stands now (replacing the job's earlier entry); resolve once it is durable. */
  write(entry: BatchJournalEntry): void | PromiseLike<void>;
  /** Let go of what it holds open (a file), once the batch ends. Optional. */
  close?(): void | PromiseLike<void>;
}

/**
 * A batch journal in memory: a resumed `client.batch()` in the same process skips what the
 * earlier calls finished (the default when no `journal` is given; it does not outlive the
 * process).
 *
 * @example
 * ```ts
 * const journal = new MemoryBatchJournal();
 * for await (const line of client.batch(jobs, { journal, signal: AbortSignal.timeout(60_000) })) save(line);
 * for await (const line of client.batch(jobs, { journal })) save(line); // only what the first call had not yielded
 * ```
 */
export class MemoryBatchJournal implements BatchJournal {
  readonly #entries = new Map<string, BatchJournalEntry>();

  /** Every job's last entry. */
  read(): BatchJournalEntry[] {
    return [...this.#entries.values()].map((entry) => structuredClone(entry));
  }

  /** Keeps a copy of `entry` as its job's. */
  write(entry: BatchJournalEntry): void {
    this.#entries.set(entry.id, structuredClone(entry));
  }

  /** How many jobs it holds an entry for. */
  get size(): number {
    return this.#entries.size;
  }
}
