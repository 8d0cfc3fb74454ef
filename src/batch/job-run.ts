/**
 * One job's way through a batch: its files uploaded, its submission journaled before it is sent
 * and after each answer, sent again only when the service surely did not take it, its task
 * waited on, its files downloaded, its result line journaled and handed over.
 *
 * What "sent with no answer" means here: each submission is one HTTP attempt (the ports send it
 * with no retry inside), so a `sending` entry with nothing after it is exactly one request that
 * may have reached the service. The SDK's own retry of a refused submission (429, 503, a
 * connection that failed before sending) would be safe, but a crash during its `Retry-After`
 * would leave the same `sending` entry and a job reported `unknown` that surely was not taken:
 * the batch does those retries itself, writing `unsent` after each refusal.
 */
import type { BatchJournalEntry } from '../coordination/batch-journal.ts';
import {
  APIError,
  AuthenticationError,
  InsufficientBalanceError,
  OmniMediaError,
  RateLimitError,
  ServiceUnavailableError,
  TaskFailedError,
  WaitTimeoutError,
} from '../errors.ts';
import { sleep } from '../internal/sleep.ts';
import { DEFAULT_IMAGE_TIMEOUT_MS, DEFAULT_VIDEO_TIMEOUT_MS, type BatchProgress, type WaitOptions } from '../options.ts';
import type { BatchOperation, BatchResult } from '../schemas/batch.ts';
import type { TaskResult } from '../schemas/task.ts';
import { isRetryable, transientDelay } from '../transport/retry-policy.ts';
import type { Slot } from './concurrency.ts';
import type { BoundedJournal } from './journal-boundary.ts';
import { mapReferences, type ReadJob } from './jobs.ts';
import type { BatchPorts } from './ports.ts';
import { isFinal, jobLine, taskLine } from './results.ts';
import type { BatchSettings } from './settings.ts';

/** Journal writes retried before the batch gives up (a task id must not be lost to one failed write). */
const JOURNAL_TRIES = 3;
/**
 * When the service is taken for unreachable (down, or a wrong base URL): this many submissions
 * in a row got no answer at all, over at least `UNREACHABLE_MS`. Both: a wrong address fails 8
 * times in a second, and a network blip of a few seconds must not end a batch of 10,000.
 */
const UNREACHABLE_TRIES = 8;
const UNREACHABLE_MS = 30_000;

/** The submissions in a row that got no answer (a connection refused or reset before sending), batch-wide. */
export class Unanswered {
  #count = 0;
  #since = 0;
  readonly #errors = new Map<string, number>();

  /** An answer came (any status): the run is over. */
  answered(): void {
    this.#count = 0;
    this.#errors.clear();
  }

  /** One more without an answer; the error that stops the batch once the run is long enough. */
  failed(error: unknown): OmniMediaError | undefined {
    if (this.#count++ === 0) this.#since = Date.now();
    const text = (error as Error)?.message ?? String(error);
    const cause = (error as { cause?: { message?: unknown } })?.cause?.message;
    const key = typeof cause === 'string' ? `${text} (${cause})` : text;
    this.#errors.set(key, (this.#errors.get(key) ?? 0) + 1);
    if (this.#count < UNREACHABLE_TRIES || Date.now() - this.#since < UNREACHABLE_MS) return undefined;
    const seen = [...this.#errors].map(([message, times]) => `${times}x ${message}`).join('; ');
    return new OmniMediaError(
      `batch: the service did not answer ${this.#count} submissions in a row over ${Math.round((Date.now() - this.#since) / 1000)} s (${seen}): stopped. ` +
        'None was taken (each failed before it was sent); check the base URL and the network, then resume with the same journal',
      { cause: error },
    );
  }
}

/** What the jobs of one run share. */
export interface RunContext {
  ports: BatchPorts;
  /** The caller's journal behind the port boundary. */
  journal: BoundedJournal;
  settings: BatchSettings;
  /** Aborted when the batch stops: the caller's abort, a fatal error, or the caller leaving the loop. */
  stop: AbortSignal;
  /** Where the local files of a job are resolved from (the JSONL file's directory). */
  resolve(file: string): Promise<string>;
  /** Uploads by absolute path: each file once per run. */
  uploads: Map<string, Promise<string>>;
  /** A result line ready to hand over. */
  emit(result: BatchResult): void;
  /** Stop the batch: no more submissions; the error ends the iteration. */
  fail(error: unknown): void;
  /** Submissions this run has sent (each may have created a task): an error says how many. */
  sent: { count: number };
  /** The run of submissions without an answer: a service that never answers stops the batch. */
  unanswered: Unanswered;
}

/** The wait's deadline when the caller gives none: the SDK's default for the kind of task. */
function defaultTimeout(op: BatchOperation | undefined): number {
  return op?.startsWith('images.') ? DEFAULT_IMAGE_TIMEOUT_MS : DEFAULT_VIDEO_TIMEOUT_MS;
}

/** A refusal that holds for every job (a bad key, no balance): the batch stops, the job stays unsent. */
function stopsTheBatch(error: unknown): boolean {
  return error instanceof AuthenticationError || error instanceof InsufficientBalanceError;
}

/** The task an error names although the service accepted the submission (an answer we could not use). */
function acceptedTaskOf(error: unknown): string | undefined {
  return error instanceof APIError && error.status !== undefined && error.status >= 200 && error.status < 300 ? error.taskId : undefined;
}

/**
 * A job's own view of the batch's stop: its waits, sleeps and uploads listen here, so that
 * thousands of jobs do not each add a listener to the one signal of the batch.
 */
function ownSignal(context: RunContext): AbortSignal {
  return AbortSignal.any([context.stop]);
}

function progress(context: RunContext, update: BatchProgress): void {
  try {
    context.settings.onProgress?.(update);
  } catch {
    // The caller's progress hook cannot break the batch.
  }
}

/** Write `entry`; a write that keeps failing stops the batch (nothing more is sent without its record). */
async function record(context: RunContext, entry: BatchJournalEntry): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await context.journal.write(entry);
      return true;
    } catch (error) {
      if (attempt >= JOURNAL_TRIES) {
        const why = (error as Error)?.message ?? String(error);
        const failure = new OmniMediaError(`batch: the journal could not record job ${entry.id} (${why}): ${whatWasSent(entry, context.sent.count)}`, {
          cause: error,
          taskId: entry.task_id,
        });
        context.fail(failure);
        return false;
      }
      await sleep(100 * attempt).catch(() => {});
    }
  }
}

/** The truth about a journal write that failed: the job's own state, and how many submissions this run sent. */
function whatWasSent(entry: BatchJournalEntry, sent: number): string {
  const job =
    entry.state === 'sending'
      ? `job ${entry.id} was not sent`
      : entry.state === 'submitted'
        ? `job ${entry.id} was accepted as task ${entry.task_id}, which the journal does not hold (a resume reports the job unknown; wait on the task with its id)`
        : entry.state === 'unsent'
          ? `job ${entry.id} was not taken by the service`
          : `job ${entry.id} has ended${entry.task_id ? ` (task ${entry.task_id})` : ''}`;
  const run = sent === 0 ? 'this run sent no submission' : `this run sent ${sent} submission${sent === 1 ? '' : 's'}, each journaled before it left`;
  return `${job}; nothing more is sent; ${run}. Resume with the same journal once it can be written`;
}

/** Hand over a result line: journaled first when it is the job's last word. */
export async function finish(context: RunContext, result: BatchResult): Promise<void> {
  if (isFinal(result) && !(await record(context, { id: result.id, state: 'finished', at: Date.now(), ...(result.task_id ? { task_id: result.task_id } : {}), result }))) return;
  progress(context, { id: result.id, status: result.status, ...(result.task_id ? { task_id: result.task_id } : {}) });
  context.emit(result);
}

/** Upload the job's local files (each once per run) and put their URLs or ids in its params. */
async function withUploads(context: RunContext, job: ReadJob): Promise<Record<string, unknown>> {
  const found = mapReferences(job.op, job.params, () => '');
  if (found.references.length === 0) return job.params;
  const values = new Map<string, string>();
  await Promise.all(
    found.references.map(async (reference) => {
      const file = await context.resolve(reference.file);
      let upload = context.uploads.get(file);
      if (!upload) {
        upload = context.ports.upload(file, reference.kind, ownSignal(context));
        context.uploads.set(file, upload);
        // A failed upload is tried again by the next job that needs the file.
        upload.catch(() => context.uploads.delete(file));
      }
      values.set(reference.file, await upload);
    }),
  );
  return mapReferences(job.op, job.params, (reference) => values.get(reference.file) as string).params;
}

/**
 * Submit a job (holding `slot` until its answer), then wait on its task. Resolves when the job
 * has its result line, or the batch stopped (the journal says where the job stands).
 */
export async function submitJob(context: RunContext, job: ReadJob, slot: Slot, retryAt?: number): Promise<void> {
  const { id, op, line } = job;
  const stop = ownSignal(context);
  let params: Record<string, unknown>;
  try {
    params = await withUploads(context, job);
  } catch (error) {
    slot.release();
    // Nothing was submitted: a refusal of this run, tried again by the next.
    if (!context.stop.aborted) await finish(context, jobLine(id, line, 'refused', error));
    return;
  }
  progress(context, { id, status: 'submitting' });
  // An earlier run's refusal said when: its Retry-After holds across the resume.
  if (retryAt !== undefined && retryAt > Date.now()) {
    try {
      await sleep(retryAt - Date.now(), stop);
    } catch {
      return slot.release();
    }
  }
  for (let refusals = 1; ; refusals++) {
    if (context.stop.aborted || !(await record(context, { id, state: 'sending', at: Date.now(), op }))) return slot.release();
    slot.sent();
    context.sent.count++;
    let submission: Awaited<ReturnType<BatchPorts['submit']>>;
    try {
      submission = await context.ports.submit(op, params);
    } catch (error) {
      const taskId = acceptedTaskOf(error);
      if (taskId) {
        submission = { task_id: taskId, wait: (options) => context.ports.wait(taskId, options) };
      } else if (isRetryable(error, 'submission')) {
        // Surely not taken: journaled so (with when it may go again), then sent again no sooner than the service asked.
        const delay = transientDelay(error, refusals);
        const retryAt = error instanceof RateLimitError || error instanceof ServiceUnavailableError ? { retry_at: Math.ceil(Date.now() + delay) } : {};
        if (!(await record(context, { id, state: 'unsent', at: Date.now(), op, ...retryAt }))) return slot.release();
        const unreachable = error instanceof APIError && error.status !== undefined ? context.unanswered.answered() : context.unanswered.failed(error);
        if (unreachable) {
          slot.release();
          return context.fail(unreachable);
        }
        if (error instanceof RateLimitError || error instanceof ServiceUnavailableError) slot.refused();
        try {
          await sleep(delay, stop);
        } catch {
          return slot.release();
        }
        continue;
      } else if (error instanceof APIError && error.status !== undefined && error.status >= 400 && error.status < 500) {
        // The service refused it: no task. Tried again by the next run (nothing was taken).
        context.unanswered.answered();
        slot.release();
        if (!(await record(context, { id, state: 'unsent', at: Date.now(), op }))) return;
        if (stopsTheBatch(error)) return context.fail(error);
        return finish(context, jobLine(id, line, 'refused', error));
      } else {
        // Sent, and no answer we can trust: the task may exist, and be billed.
        slot.release();
        return finish(context, jobLine(id, line, 'unknown', error));
      }
    }
    context.unanswered.answered();
    const recorded = await record(context, { id, state: 'submitted', at: Date.now(), op, task_id: submission.task_id });
    slot.accepted();
    slot.release();
    if (!recorded) return;
    progress(context, { id, status: 'pending', task_id: submission.task_id });
    return waitJob(context, { id, op, line, taskId: submission.task_id }, submission.wait);
  }
}

/** Wait on a job's task, download its files, and hand over its result line. */
export async function waitJob(
  context: RunContext,
  job: { id: string; op: BatchOperation | undefined; line: number | undefined; taskId: string },
  wait: (options: WaitOptions) => Promise<TaskResult> = (options) => context.ports.wait(job.taskId, options),
): Promise<void> {
  const { id, line, taskId } = job;
  const { settings } = context;
  const stop = ownSignal(context);
  let task: TaskResult;
  try {
    task = await wait({
      ...settings.wait,
      timeout: settings.wait.timeout ?? defaultTimeout(job.op),
      signal: stop,
      onProgress: (seen) => progress(context, { id, status: seen.status, task_id: taskId, task: seen }),
    });
  } catch (error) {
    if (stop.aborted) return; // still `submitted`: the next run waits on it
    if (error instanceof TaskFailedError) return finish(context, taskLine(id, line, error.task, { error }));
    // The wait gave up (its deadline, the task gone): a line for now; the next run waits again.
    const last = error instanceof WaitTimeoutError ? error.lastTask : undefined;
    return finish(context, last ? taskLine(id, line, last, { error }) : jobLine(id, line, 'pending', error, taskId));
  }
  if (task.status === 'completed') {
    try {
      context.ports.resultURLs(task);
    } catch (error) {
      // Completed without a usable result (no URL, or none fetch could use): its last word.
      return finish(context, taskLine(id, line, task, { error }));
    }
  }
  let files: string[] = [];
  if (settings.download !== undefined) {
    try {
      files = await context.ports.download(task, id, settings.download, stop);
    } catch (error) {
      if (stop.aborted) return;
      // Completed, its files not saved: the next run downloads them again.
      return finish(context, taskLine(id, line, task, { error }));
    }
  }
  return finish(context, taskLine(id, line, task, { files }));
}
