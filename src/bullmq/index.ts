/**
 * `omnimedia/bullmq`: tasks of the service as BullMQ jobs, across machines, never paid twice.
 * A job's `data` is one batch line (`{ id?, op, params }`); the processor runs it as a batch of
 * one whose journal is the job's own data: it marks the job as submitting (`job.updateData`)
 * before sending and stores the task id right after the answer, before waiting, so a retried
 * or stalled job resumes the wait instead of submitting again, and a retry that finds the mark
 * without a task id fails as `unknown` (`UnrecoverableError`) instead of paying twice. Right
 * before the mark and right before the POST it confirms the worker still holds the job's lock
 * (its token, `job.extendLock`): a worker frozen past `lockDuration`, whose job BullMQ handed
 * to another, sends nothing and leaves the job's data alone. It uses
 * the client by its package name (`client.batch()`), and `bullmq` (an optional peer) for
 * `UnrecoverableError`. See the guide
 * [Many tasks](https://github.com/omnimedia/omnimedia/blob/main/docs/many-tasks.md).
 *
 * @module omnimedia/bullmq
 */
import { UnrecoverableError } from 'bullmq';
import type { OmniMedia, WaitOptions } from 'omnimedia';
import type { BatchJournal, BatchJournalEntry } from 'omnimedia/coordination';
import type { BatchJob, BatchResult } from 'omnimedia/resources';

/**
 * Options of {@link omniMediaProcessor}.
 *
 * @example
 * ```ts
 * const processor = omniMediaProcessor(client, { wait: { timeout: 20 * 60_000 }, download: './results' });
 * ```
 */
export interface OmniMediaProcessorOptions {
  /** Options of every wait (`timeout`, `interval`...). A wait that gives up fails the job, and its retry resumes the wait. */
  wait?: Omit<WaitOptions, 'signal' | 'onProgress'>;
  /** A directory to download each completed task's files into: `<id>.<ext>`, or `<id>-<k>.<ext>` for several. */
  download?: string;
}

/**
 * A job's data: one batch line, and where the processor recorded it stands (`omnimedia`).
 *
 * @example
 * ```ts
 * const data: OmniMediaJobData = { id: 'hero-1', op: 'images.generate', params: { model: 'omni-image', prompt: 'a lighthouse' } };
 * await queue.add('generate', data, { attempts: 3 });
 * ```
 */
export type OmniMediaJobData = BatchJob & {
  /** Written by the processor: the job's batch journal entry (submitting, then the task id). Leave it alone. */
  omnimedia?: BatchJournalEntry;
};

/**
 * The part of a BullMQ `Job` the processor uses (BullMQ 5 and later), by shape.
 *
 * @example
 * ```ts
 * const worker = new Worker<OmniMediaJobData, BatchResult>('media', (job: OmniMediaJob) => processor(job), { connection });
 * ```
 */
export interface OmniMediaJob {
  /** The job's id: the result line's `id` when the data gives none. */
  id?: string | undefined;
  /** The batch line, and the processor's record. */
  data: OmniMediaJobData;
  /** Replace the job's data (the processor's record goes in `omnimedia`). */
  updateData(data: OmniMediaJobData): Promise<void>;
  /** Report progress: `{ status, task_id }` as the task moves. */
  updateProgress(progress: object): Promise<void>;
  /**
   * BullMQ's lock check: extend the job's lock held with `token` by `duration` ms; 1 when it was
   * still held, 0 when another worker has it (or none). Without it, the lock is not checked.
   */
  extendLock?(token: string, duration: number): Promise<number>;
}

/** The worker's `lockDuration` (BullMQ's protected `job.queue` is the worker running it), else BullMQ's default. */
function lockDurationOf(job: OmniMediaJob): number {
  const duration = (job as { queue?: { opts?: { lockDuration?: unknown } } }).queue?.opts?.lockDuration;
  return typeof duration === 'number' && duration > 0 ? duration : DEFAULT_LOCK_DURATION_MS;
}

/** BullMQ's default `lockDuration`, in ms: the lock is renewed by the worker's own when it says. */
const DEFAULT_LOCK_DURATION_MS = 30_000;

/**
 * Confirm the worker still holds the job's lock (its `token`), or throw: a worker frozen past
 * `lockDuration` (a GC pause, a SIGSTOP, a VM migration) finds its job handed to another, and
 * must send nothing. BullMQ itself neither aborts the processor nor stops its writes then.
 */
async function confirmLock(job: OmniMediaJob, token: string | undefined, id: string): Promise<void> {
  if (token === undefined || typeof job.extendLock !== 'function') return;
  const held = await job.extendLock(token, lockDurationOf(job));
  if (Number(held) !== 1) throw new LostLockError(`job ${id}: this worker no longer holds the job's lock (another worker has it): nothing was sent`);
}

/** The lock was lost before the submission: this attempt ends, the job's data untouched. */
class LostLockError extends Error {
  override name = 'LostLockError';
}

/**
 * The job's data as a batch journal of one job: its record in `data.omnimedia`, written with
 * `updateData`. The submitting mark is written only while the lock is held, and the lock is
 * confirmed again once it is written, right before the POST; the answer's record (a task id)
 * is always written: it is the truth about a task that exists.
 */
function journalOf(job: OmniMediaJob, token: string | undefined, id: string, lost: { error?: LostLockError }): BatchJournal {
  return {
    read: () => (job.data.omnimedia ? [job.data.omnimedia] : []),
    write: async (entry) => {
      const sending = entry.state === 'sending';
      try {
        if (sending) await confirmLock(job, token, id);
        const data = { ...job.data, omnimedia: entry };
        await job.updateData(data);
        job.data = data;
        if (sending) await confirmLock(job, token, id);
      } catch (error) {
        if (error instanceof LostLockError) lost.error = error;
        throw error;
      }
    },
  };
}

/** What the result line means for BullMQ: the return value, or the error that fails the job (retried or not). */
function outcome(line: BatchResult): BatchResult {
  if (line.status === 'completed' && !line.error) return line;
  const message = `job ${line.id}: ${line.status}${line.task_id ? ` (task ${line.task_id})` : ''}${line.error ? `: ${line.error.message}` : ''}`;
  // The service said no, or cannot say (unknown): a retry would not help, or could pay twice.
  if (line.status === 'unknown' || line.status === 'invalid' || (line.status === 'refused' && line.error?.status !== undefined) || line.error?.type === 'TaskFailedError' || line.error?.type === 'UnusableResultError')
    throw new UnrecoverableError(message);
  // A wait that gave up, a download that broke off, an upload that failed: the retry resumes.
  throw new Error(message);
}

/**
 * A BullMQ processor that runs each job's batch line on `client`: submitted once, whatever
 * BullMQ retries; progress follows the task's status; the return value is the result line; a
 * failed task (or one the service refused) fails the job with `UnrecoverableError`.
 *
 * @example
 * ```ts
 * import { Queue, Worker } from 'bullmq';
 * import { OmniMedia } from 'omnimedia';
 * import { omniMediaProcessor } from 'omnimedia/bullmq';
 *
 * const connection = { host: '127.0.0.1', port: 6379 };
 * const client = new OmniMedia();
 * const worker = new Worker('media', omniMediaProcessor(client), { connection, concurrency: 50 });
 * await new Queue('media', { connection }).add('fox', { id: 'fox', op: 'images.generate', params: { model: 'omni-image', prompt: 'a fox' } }, { attempts: 3 });
 * ```
 */
export function omniMediaProcessor(
  client: OmniMedia,
  options: OmniMediaProcessorOptions = {},
): (job: OmniMediaJob, token?: string, signal?: AbortSignal) => Promise<BatchResult> {
  return async (job, token, signal) => {
    const { omnimedia: _record, ...line } = job.data;
    const id = line.id ?? `job-${job.id ?? 'unnamed'}`;
    let result: BatchResult | undefined;
    const lost: { error?: LostLockError } = {};
    try {
      for await (const found of client.batch([{ ...line, id } as BatchJob], {
        journal: journalOf(job, token, id, lost),
        concurrency: 1,
        ...(options.wait ? { wait: options.wait } : {}),
        ...(options.download !== undefined ? { download: options.download } : {}),
        ...(signal ? { signal } : {}),
        onProgress: ({ status, task_id }) => void job.updateProgress({ status, ...(task_id ? { task_id } : {}) }).catch(() => {}),
      }))
        result = found;
    } catch (error) {
      // Another worker has the job: this attempt ends, sending nothing (BullMQ's own move of
      // the job fails for want of the lock; the holder's attempt decides).
      if (lost.error) throw lost.error;
      // An invalid job stays invalid: BullMQ does not retry it.
      if ((error as Error)?.name === 'ValidationError') throw new UnrecoverableError(`job ${id}: ${(error as Error).message}`);
      throw error;
    }
    // Handed over by an earlier attempt that died before returning it.
    result ??= job.data.omnimedia?.state === 'delivered' ? job.data.omnimedia.result : undefined;
    if (!result) throw new Error(`job ${id}: stopped before its task ended; a retry resumes it`);
    return outcome(result);
  };
}
