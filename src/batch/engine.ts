/**
 * The batch engine: jobs in (a JSONL file or any iterable), result lines out in completion
 * order, as an async iterable. A run first takes up what the journal says (waits on what was
 * submitted, hands over what finished and was not yet handed over, reports `unknown` what was
 * sent with no answer), then reads the jobs: each valid one not journaled yet is submitted
 * under the concurrency limit; waits never count against it.
 */
import type { BatchJournalEntry } from '../coordination/batch-journal.ts';
import { OmniMediaError, ValidationError, type ValidationIssue } from '../errors.ts';
import type { BatchOptions } from '../options.ts';
import type { BatchResult } from '../schemas/batch.ts';
import { SubmissionLimit } from './concurrency.ts';
import { boundedJournal, type BoundedJournal } from './journal-boundary.ts';
import { finish, submitJob, Unanswered, waitJob, type RunContext } from './job-run.ts';
import { mapReferences, placeholderFor, readJob, type JobReading } from './jobs.ts';
import { directoryOf, openFileJournal, readJsonLines, removePartialFiles, resolvePath } from './node-files.ts';
import type { BatchPorts } from './ports.ts';
import { invalidLine, isFinal, jobLine } from './results.ts';
import { resolveBatchOptions, type BatchSettings } from './settings.ts';
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
  /** Output file names (but their extension) taken, with their job: no two jobs write one file. */
  readonly #stems = new Map<string, { id: string; line: number }>();

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
    if (first === undefined)
      for (const stem of outputStems(id, job.params)) {
        const owner = this.#stems.get(stem);
        if (owner && owner.id !== id) {
          issues.push({ path: 'id', message: `"${id}" would write the file ${stem}.<ext>, as "${owner.id}" of line ${owner.line} does: give the jobs ids that name different files` });
          break;
        }
        this.#stems.set(stem, { id, line: item.line });
      }
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

/** A job's output files' names, but their extension: `<id>`, or `<id>-<k>` for each of its `n` outputs; compared case-folded (a Mac's or Windows' disk). */
function outputStems(id: string, params: Record<string, unknown>): string[] {
  const n = typeof params.n === 'number' && Number.isSafeInteger(params.n) && params.n > 1 ? params.n : 1;
  const stems = n === 1 ? [id] : Array.from({ length: n }, (_, k) => `${id}-${k}`);
  return stems.map((stem) => stem.normalize('NFC').toLowerCase());
}

/**
 * Run a batch, in stages: its options and source checked; every job checked before anything is
 * sent (a `ValidationError` naming each invalid job, each issue's path `line <n>: <field>`,
 * unless `skipInvalid`); the journal opened; then the run ({@link runJobs}).
 */
export async function* runBatch(ports: BatchPorts, source: BatchSource, options?: BatchOptions): AsyncGenerator<BatchResult, void, undefined> {
  const settings = resolveBatchOptions(options);
  const fromFile = typeof source === 'string';
  if (!fromFile && (typeof source !== 'object' || source === null || !(Symbol.iterator in source || Symbol.asyncIterator in source)))
    throw new ValidationError([{ path: 'jobs', message: 'must be a JSONL file path or an iterable of jobs' }], 'batch');
  const base = fromFile ? await directoryOf(source) : undefined;
  const resolve = (file: string) => resolvePath(file, base);
  const checker = () => new JobChecker(ports, resolve);
  if (settings.dryRun) return yield* dryRun(checker(), source);
  // Before anything is sent: every job of a file or an array (a one-shot iterable is checked as it is read).
  if (!settings.skipInvalid && (fromFile || Array.isArray(source))) await checkAll(checker(), source);
  const journal = await openJournal(ports, settings);
  yield* runJobs({ ports, settings, resolve, checker, source, ...journal });
}

/** `dryRun`: one `valid` or `invalid` line per job, nothing sent. */
async function* dryRun(jobs: JobChecker, source: BatchSource): AsyncGenerator<BatchResult> {
  for await (const batch of batchesOf(source))
    for (const item of batch) {
      const reading = await jobs.check(item);
      yield 'job' in reading ? jobLine(reading.job.id, item.line, 'valid') : invalidLine(reading.id, reading.line, reading.issues);
    }
}

/** Every job checked; a `ValidationError` listing every problem of every invalid one. */
async function checkAll(jobs: JobChecker, source: BatchSource): Promise<void> {
  const issues: ValidationIssue[] = [];
  for await (const batch of batchesOf(source))
    for (const item of batch) {
      const reading = await jobs.check(item);
      if (!('job' in reading)) issues.push(...linedIssues(reading));
    }
  if (issues.length > 0) throw new ValidationError(issues, 'batch jobs');
}

function linedIssues(reading: { line: number; issues: readonly ValidationIssue[] }): ValidationIssue[] {
  return reading.issues.map((issue) => ({ path: `line ${reading.line}: ${issue.path}`, message: issue.message }));
}

/**
 * The journal the batch writes: a file (its path), the caller's port, or the client's own.
 * `byJob`: the client's own journal holds the jobs of every earlier call, so a call takes up
 * only the jobs it names, as it reads them; the others take up every entry at once.
 */
async function openJournal(ports: BatchPorts, settings: BatchSettings): Promise<{ journal: BoundedJournal; byJob: boolean }> {
  const given = typeof settings.journal === 'string' ? await openFileJournal(settings.journal) : (settings.journal ?? ports.clientJournal);
  return { journal: boundedJournal(given, settings.signal), byJob: settings.journal === undefined };
}

/** Result lines ready to hand over, and the one wake-up of the loop that hands them over. */
class Outbox {
  readonly #lines: BatchResult[] = [];
  #wake: (() => void) | undefined;

  push(line: BatchResult): void {
    this.#lines.push(line);
    this.notify();
  }

  notify(): void {
    this.#wake?.();
    this.#wake = undefined;
  }

  /** The next line; `undefined` once there is none and `done()` says none will come. */
  async next(done: () => boolean): Promise<BatchResult | undefined> {
    for (;;) {
      const line = this.#lines.shift();
      if (line || done()) return line;
      await new Promise<void>((wake) => (this.#wake = wake));
    }
  }
}

interface Run {
  ports: BatchPorts;
  settings: BatchSettings;
  resolve: (file: string) => Promise<string>;
  checker: () => JobChecker;
  source: BatchSource;
  journal: BoundedJournal;
  byJob: boolean;
}

/**
 * The run: the journal taken up, the jobs read and submitted under the concurrency limit (waits
 * hold no slot), each result line handed over in completion order and then journaled as
 * delivered. Ends when every job has its line, or at the first fatal error (thrown once the
 * submissions on the wire are answered and journaled).
 */
async function* runJobs(run: Run): AsyncGenerator<BatchResult> {
  const { settings, journal } = run;
  const stop = new AbortController();
  const onAbort = () => stop.abort(settings.signal?.reason);
  settings.signal?.addEventListener('abort', onAbort, { once: true });
  if (settings.signal?.aborted) onAbort();
  const outbox = new Outbox();
  let failure: { error: unknown } | undefined;
  const running = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    const tracked = work.catch((error: unknown) => context.fail(error)).finally(() => {
      running.delete(tracked);
      outbox.notify();
    });
    running.add(tracked);
  };
  const context: RunContext = {
    ports: run.ports,
    journal,
    settings,
    stop: stop.signal,
    resolve: run.resolve,
    uploads: new Map(),
    sent: { count: 0 },
    unanswered: new Unanswered(),
    emit: (result) => outbox.push(result),
    fail: (error) => {
      failure ??= { error };
      stop.abort(error);
      outbox.notify();
    },
  };
  let reading = true;
  track(readAndSubmit(context, run, track).finally(() => (reading = false)));

  let delivered: Promise<unknown> = Promise.resolve();
  try {
    for (let line = await outbox.next(() => !reading && running.size === 0); line; line = await outbox.next(() => !reading && running.size === 0)) {
      yield line;
      // Handed over (the caller asked for the next line): a resumed batch yields it no more.
      if (isFinal(line)) delivered = Promise.all([delivered, journal.write(deliveredEntry(line)).catch(() => {})]);
    }
    if (failure) throw failure.error;
  } finally {
    settings.signal?.removeEventListener('abort', onAbort);
    stop.abort(new Error('the batch ended'));
    // Submissions on the wire are answered and journaled before the batch lets go.
    while (running.size > 0) await Promise.all([...running]);
    await delivered;
    await journal.close();
  }
}

/** The journal taken up, then each job read, checked and (unless journaled already) submitted. */
async function readAndSubmit(context: RunContext, run: Run, track: (work: Promise<void>) => void): Promise<void> {
  const { settings } = context;
  const entries = await context.journal.read();
  // Taken up now (every entry), or as each job is read (the client's own journal).
  const later = new Map<string, BatchJournalEntry>();
  const skip = new Set<string>();
  // The jobs an earlier run's 429 or 503 asked to wait: not sent before then.
  const retryAt = new Map<string, number>();
  if (run.byJob) for (const entry of entries) later.set(entry.id, entry);
  else {
    // A job waited on again may have been downloading when its run stopped.
    if (settings.download !== undefined) await removePartialFiles(settings.download, new Set(entries.filter((e) => e.state === 'submitted').map((e) => e.id)));
    for (const entry of entries)
      if (takeUp(context, entry, track)) skip.add(entry.id);
      else if (entry.retry_at !== undefined) retryAt.set(entry.id, entry.retry_at);
  }
  const limit = new SubmissionLimit(settings.concurrency);
  const jobs = run.checker();
  for await (const batch of batchesOf(run.source))
    for (const item of batch) {
      if (context.stop.aborted) return;
      const checked = await jobs.check(item);
      if (!('job' in checked)) {
        if (!settings.skipInvalid) return context.fail(new ValidationError(linedIssues(checked), 'batch jobs'));
        await finish(context, invalidLine(checked.id, checked.line, checked.issues));
        continue;
      }
      const { id } = checked.job;
      const entry = later.get(id);
      if (entry) {
        later.delete(id);
        if (entry.state === 'submitted' && settings.download !== undefined) await removePartialFiles(settings.download, new Set([id]));
        if (takeUp(context, entry, track)) continue;
        if (entry.retry_at !== undefined) retryAt.set(id, entry.retry_at);
      }
      if (skip.has(id)) continue;
      const slot = await limit.acquire(context.stop).catch(() => undefined);
      if (!slot) return;
      track(submitJob(context, checked.job, slot, retryAt.get(id)));
    }
}

function deliveredEntry(result: BatchResult): BatchJournalEntry {
  return { id: result.id, state: 'delivered', at: Date.now(), ...(result.task_id ? { task_id: result.task_id } : {}), result };
}

/**
 * Take up a journal entry: its job waited on (submitted), its line handed over (finished and
 * not yet delivered), or reported `unknown` (sent with no answer). `true` when the job is not to
 * be submitted again. A state outside the journal's closed set is an error, never a guess.
 */
function takeUp(context: RunContext, entry: BatchJournalEntry, track: (work: Promise<void>) => void): boolean {
  const unknown = entry.result?.status === 'unknown' || entry.state === 'sending';
  if (entry.state === 'unsent' || (context.settings.resubmitUnknown && unknown)) return false;
  switch (entry.state) {
    case 'submitted':
      if (entry.task_id) track(waitJob(context, { id: entry.id, op: entry.op, line: undefined, taskId: entry.task_id }));
      return true;
    case 'finished':
      if (entry.result) context.emit(entry.result);
      return true;
    case 'sending':
      track(finish(context, jobLine(entry.id, undefined, 'unknown', new Error('the submission was sent and no answer was received (the run stopped): the task may exist, and be billed'))));
      return true;
    case 'delivered':
      return true;
    default:
      throw new OmniMediaError(`batch journal: job ${String((entry as { id?: unknown }).id)} is in the state ${JSON.stringify((entry as { state?: unknown }).state)}, which no batch writes (${'sending, unsent, submitted, finished, delivered'})`);
  }
}
