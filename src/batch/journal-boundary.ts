/**
 * A batch's journal behind the one port boundary (`callPort`): the engine calls the caller's
 * `BatchJournal` (a file, Redis, their own store) only through here. Each call answers within
 * `JOURNAL_TIMEOUT_MS`, sync throws and odd thenables included; a failure is an
 * `OmniMediaError` saying which call failed, and the engine's rule takes over (a write is tried
 * again, then the batch stops sending: nothing is sent without its entry).
 */
import type { BatchJournal, BatchJournalEntry } from '../coordination/batch-journal.ts';
import { OmniMediaError } from '../errors.ts';
import { errorText } from '../internal/error-text.ts';
import { callPort, PortTimeout } from '../internal/port-call.ts';

/**
 * How long one journal call may take, in ms. Longer than the stores' usual 2 s: a write is a
 * file's fsync on a busy disk, or a Redis write that waits for a replica (the Redis journal has
 * its own 5 s limit per command, and a read is a page of HSCAN at a time).
 */
export const JOURNAL_TIMEOUT_MS = 30_000;

function failed(what: string) {
  return (why: unknown): never => {
    const reason = why instanceof PortTimeout ? `no answer within ${JOURNAL_TIMEOUT_MS} ms` : errorText(why);
    throw new OmniMediaError(`batch journal: ${what} failed (${reason})`, { cause: why });
  };
}

/** What the engine calls: `journal`'s calls, each bounded, each failure a rejection (never a sync throw). */
export interface BoundedJournal {
  read(): Promise<readonly BatchJournalEntry[]>;
  write(entry: BatchJournalEntry): Promise<void>;
  close(): Promise<void>;
}

/** `journal`, each of its calls bounded; `signal` ends a read at once (a write is always waited for: it records a submission). */
export function boundedJournal(journal: BatchJournal, signal: AbortSignal | undefined): BoundedJournal {
  return {
    read: async () => callPort(() => journal.read(), { timeoutMs: JOURNAL_TIMEOUT_MS, signal, fallback: failed('read'), accept: Array.isArray }),
    write: async (entry) => void (await callPort(() => journal.write(entry), { timeoutMs: JOURNAL_TIMEOUT_MS, fallback: failed(`write of job ${entry.id}`) })),
    close: async () => void (await callPort(() => journal.close?.(), { timeoutMs: JOURNAL_TIMEOUT_MS, fallback: failed('close') })),
  };
}
