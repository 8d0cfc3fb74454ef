/**
 * The batch engine: jobs in (a JSONL file or any iterable), result lines out in completion
 * order, as an async iterable. A run first takes up what the journal says (waits on what was
 * submitted, hands over what finished and was not yet handed over, reports `unknown` what was
 * sent with no answer), then reads the jobs: each valid one not journaled yet is submitted
 * under the concurrency limit; waits never count against it.
 */
import { MemoryBatchJournal, type BatchJournal, type BatchJournalEntry } from '../coordination/batch-journal.ts';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import type { BatchOptions } from '../options.ts';
import type { BatchResult } from '../schemas/batch.ts';
import { SubmissionLimit } from './concurrency.ts';
import { boundedJournal } from './journal-boundary.ts';
import { finish, submitJob, waitJob, type RunContext } from './job-run.ts';
import { mapReferences, placeholderFor, readJob, type JobReading, type ReadJob } from './jobs.ts';
import { directoryOf, openFileJournal, readJsonLines, removePartialFiles, resolvePath } from './node-files.ts';
import type { BatchPorts } from './ports.ts';
import { invalidLine, isFinal, jobLine } from './results.ts';
import { resolveBatchOptions } from './settings.ts';
import { readCallerInput } from '../validation/caller-input.ts';

/** Jobs as `client.batch()` takes them: a JSONL file's path (Node), or an iterable of job objects. */
export type BatchSource = string | Iterable<unknown> | AsyncIterable<unknown>;

/** A job as read: its value (plain data), or why it could not be read (a line that is no JSON, an item whose getter throws). */
type Item = { line: number; value?: unknown; error?: string; unreadable?: ValidationIssue[] };

/** An iterable's item read once into plain data at the door (`readCallerInput`), as every public method reads its input. */
function readItem(value: unknown, line: number): Item {
  try {
    return { line, value: readCallerInput(value, `job ${line}`) };
  } catch (error) {
    if (error instanceof ValidationError) return { line, unreadable: [...error.issues] };
    throw error;
  }
}

/**
 * The items of the source with their line (a file's line, or the 1-based position in an
 * iterable), in batches: a file's a chunk at a time, an iterable's one at a time.
 */
async function* batchesOf(source: BatchSource): AsyncGenerator<Item[]> {
  if (typeof source === 'string') {
    yield* readJsonLines(source);
    return;
  }
  let line = 0;
  // A file's lines are plain data already (JSON.parse): only an iterable's items are read.
  for await (const value of source as AsyncIterable<unknown>) yield [readItem(value, ++line)];
}

/** Checks every job against the rules (nothing sent), with each local file checked once. */
class JobChecker {
  readonly #ports: BatchPorts;
  readonly #resolve: (file: string) => Promise<string>;
  readonly #files = new Map<string, Promise<string | undefined>>();
  /** Ids seen, with their line: an id is unique in the jobs. */
  readonly #ids = new Map<string, number>();

  constructor(ports: BatchPorts, resolve: (file: string) => Promise<string>) {
    this.#ports = ports;
    this.#resolve = resolve;
  }

  async check(item: Item): Promise<JobReading> {
    const reading: JobReading = item.unreadable ? { id: `line-${item.line}`, line: item.line, issues: item.unreadable } : readJob(item.value, item.line, item.error);
    const id = 'job' in reading ? reading.job.id : reading.id;
    const first = this.#ids.get(id);
    const issues: ValidationIssue[] = 'job' in reading ? [] : [...reading.issues];
    if (first !== undefined) issues.push({ path: 'id', message: `"${id}" is the id of line ${first} already: ids must be unique` });
    else this.#ids.set(id, item.line);
    if (!('job' in reading)) return { id, line: item.line, issues };
    const { job } = reading;
    const { params, references } = mapReferences(job.op, job.params, placeholderFor);
    issues.push(...(await this.#ports.check(job.op, params)).map((issue) => ({ ...issue, path: `params.${issue.path}` })));
    for (const reference of references) {
      const file = await this.#resolve(reference.file);
      let problem = this.#files.get(file);
      if (!problem) this.#files.set(file, (problem = this.#ports.checkFile(file, reference.kind)));
      const found = await problem;
      if (found) issues.push({ path: `params.${reference.path}`, message: `${reference.file}: ${found}` });
    }
    return issues.length > 0 ? { id, line: item.line, issues } : reading;
  }
}

/**
 * Run a batch. A `ValidationError` (every invalid job, each issue's path `line <n>: <field>`)
 * before anything is sent when a file or an array holds an invalid job, unless `skipInvalid`.
 */
export async function* runBatch(ports: BatchPorts, source: BatchSource, options?: BatchOptions): AsyncGenerator<BatchResult, void, undefined> {
  const settings = resolveBatchOptions(options);
  const fromFile = typeof source === 'string';
  if (!fromFile && (typeof source !== 'object' || source === null || !(Symbol.iterator in source || Symbol.asyncIterator in source)))
    throw new ValidationError([{ path: 'jobs', message: 'must be a JSONL file path or an iterable of jobs' }], 'batch');
  const base = fromFile ? await directoryOf(source) : undefined;
  const resolve = (file: string) => resolvePath(file, base);
  const checker = () => new JobChecker(ports, resolve);

  if (settings.dryRun) {
    const jobs = checker();
    for await (const batch of batchesOf(source))
      for (const item of batch) {
        const reading = await jobs.check(item);
        yield 'job' in reading ? jobLine(reading.job.id, item.line, 'valid') : invalidLine(reading.id, reading.line, reading.issues);
      }
    return;
  }
  // Before anything is sent: every job of a file or an array (a one-shot iterable is checked as it is read).
  if (!settings.skipInvalid && (fromFile || Array.isArray(source))) {
    const jobs = checker();
    const issues: ValidationIssue[] = [];
    for await (const batch of batchesOf(source))
      for (const item of batch) {
        const reading = await jobs.check(item);
        if (!('job' in reading)) issues.push(...reading.issues.map((issue) => ({ path: `line ${reading.line}: ${issue.path}`, message: issue.message })));
      }
    if (issues.length > 0) throw new ValidationError(issues, 'batch jobs');
  }

  const given: BatchJournal = typeof settings.journal === 'string' ? await openFileJournal(settings.journal) : (settings.journal ?? new MemoryBatchJournal());
  const journal = boundedJournal(given, settings.signal);
  const stop = new AbortController();
  const onAbort = () => stop.abort(settings.signal?.reason);
  settings.signal?.addEventListener('abort', onAbort, { once: true });
  if (settings.signal?.aborted) onAbort();
  const ready: BatchResult[] = [];
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  let failure: { error: unknown } | undefined;
  const running = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    const tracked = work.catch((error: unknown) => context.fail(error)).finally(() => {
      running.delete(tracked);
      notify();
    });
    running.add(tracked);
  };
  const context: RunContext = {
    ports,
    journal,
    settings,
    stop: stop.signal,
    resolve,
    uploads: new Map(),
    sent: { count: 0 },
    emit: (result) => {
      ready.push(result);
      notify();
    },
    fail: (error) => {
      failure ??= { error };
      stop.abort(error);
      notify();
    },
  };

  let reading = true;
  const reader = (async () => {
    try {
      const skip = await resume(context, await journal.read(), track);
      const limit = new SubmissionLimit(settings.concurrency);
      const jobs = checker();
      reading: for await (const batch of batchesOf(source))
        for (const item of batch) {
          if (stop.signal.aborted) break reading;
          const checked = await jobs.check(item);
          if (!('job' in checked)) {
            if (!settings.skipInvalid) return context.fail(new ValidationError(checked.issues.map((i) => ({ ...i, path: `line ${checked.line}: ${i.path}` })), 'batch jobs'));
            await finish(context, invalidLine(checked.id, checked.line, checked.issues));
            continue;
          }
          if (skip.has(checked.job.id)) continue;
          const slot = await limit.acquire(AbortSignal.any([stop.signal])).catch(() => undefined);
          if (!slot) break reading;
          track(submitJob(context, checked.job as ReadJob, slot));
        }
    } finally {
      reading = false;
      notify();
    }
  })();
  track(reader);

  let delivered: Promise<unknown> = Promise.resolve();
  try {
    for (;;) {
      const next = ready.shift();
      if (next) {
        yield next;
        // Handed over (the caller asked for the next line): a resumed batch yields it no more.
        if (isFinal(next))
          delivered = Promise.all([delivered, Promise.resolve(journal.write(deliveredEntry(next))).catch(() => {})]);
        continue;
      }
      if (!reading && running.size === 0) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (failure) throw failure.error;
  } finally {
    settings.signal?.removeEventListener('abort', onAbort);
    stop.abort(new Error('the batch ended'));
    // Submissions on the wire are answered and journaled before the batch lets go.
    while (running.size > 0) await Promise.all([...running]);
    await delivered;
    if (typeof settings.journal === 'string') await journal.close();
  }
}

function deliveredEntry(result: BatchResult): BatchJournalEntry {
  return { id: result.id, state: 'delivered', at: Date.now(), ...(result.task_id ? { task_id: result.task_id } : {}), result };
}

/**
 * Take up what the journal says, before reading any job: waits on what was submitted, result
 * lines not yet handed over, `unknown` for a submission sent with no answer (and, with
 * `download`, the partial files a stopped run left for the jobs waited on again). Returns the ids
 * the reading of the jobs skips (what is not to be submitted again).
 */
async function resume(context: RunContext, entries: readonly BatchJournalEntry[], track: (work: Promise<void>) => void): Promise<Set<string>> {
  const skip = new Set<string>();
  const again = context.settings.resubmitUnknown;
  // A job waited on again may have been downloading when its run stopped.
  const { download } = context.settings;
  if (download !== undefined) await removePartialFiles(download, new Set(entries.filter((e) => e.state === 'submitted').map((e) => e.id)));
  for (const entry of entries) {
    const unknown = entry.result?.status === 'unknown' || entry.state === 'sending';
    if (entry.state === 'unsent' || (again && unknown)) continue;
    skip.add(entry.id);
    if (entry.state === 'submitted' && entry.task_id) track(waitJob(context, { id: entry.id, op: entry.op, line: undefined, taskId: entry.task_id }));
    else if (entry.state === 'finished' && entry.result) context.emit(entry.result);
    else if (entry.state === 'sending') track(finish(context, jobLine(entry.id, undefined, 'unknown', new Error('the submission was sent and no answer was received (the run stopped): the task may exist, and be billed'))));
  }
  return skip;
}
