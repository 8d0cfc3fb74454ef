/**
 * The studio's journal, `DIR/journal.jsonl`, with the batch's rules (DESIGN 14): one owner (a
 * lock file naming it), every line complete and flushed to disk before what it records happens
 * (a submission's line before its POST), a submission sent with no answer recorded is `unknown`
 * after a restart and never sent again. The studio writes its own small journal rather than the
 * batch's (src/batch/ is the batch's; DESIGN 15 needs four line kinds only), same rules.
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, unlink, writeFile, mkdir, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { TaskResult } from 'omnimedia';

/** The four submissions of the page, named as a batch line names them (`op`). */
export type StudioOperation = 'images.generate' | 'images.edit' | 'videos.generate' | 'videos.edit';

/** A line of `journal.jsonl`. */
export type JournalLine =
  /** Written and flushed before the POST: the body exactly as it is forwarded. */
  | { type: 'submitting'; id: string; op: StudioOperation; params: Record<string, unknown>; at: number }
  /** The service's answer: a task id (accepted), or the HTTP status of a refusal (nothing created). */
  | { type: 'answered'; id: string; task_id?: string; status: number; at: number }
  /** The task ended; its outputs downloaded into `results/` (`files`, by name), or why not (`error`). */
  | { type: 'finished'; id: string; task: TaskResult; files: string[]; error?: string; at: number };

/**
 * A submission as the journal knows it. `submitting`: its POST is in flight (this process);
 * `unknown`: it was in flight when an earlier studio stopped (it may have created a task: not
 * sent again); `refused`: answered without a task; `running`: a task the studio follows;
 * `finished`: ended, its files in `results/`.
 */
export interface StudioJob {
  id: string;
  op: StudioOperation;
  params: Record<string, unknown>;
  submitted_at: number;
  state: 'submitting' | 'unknown' | 'refused' | 'running' | 'finished';
  task_id?: string;
  /** The HTTP status of a refusal. */
  status?: number;
  /** The last task the studio saw (a finished job's final one). */
  task?: TaskResult;
  /** Output files in `results/`, in the task's order. */
  files?: string[];
  /** Why the files could not be downloaded. */
  error?: string;
}

const OPERATIONS: readonly string[] = ['images.generate', 'images.edit', 'videos.generate', 'videos.edit'];

/** A line as written, or undefined for a torn or foreign one (it costs only itself). */
function parseLine(text: string): JournalLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const line = value as Partial<Record<string, unknown>>;
  if (typeof line.id !== 'string' || typeof line.at !== 'number') return undefined;
  if (line.type === 'submitting') return OPERATIONS.includes(line.op as string) && typeof line.params === 'object' && line.params !== null ? (line as JournalLine) : undefined;
  if (line.type === 'answered') return typeof line.status === 'number' ? (line as JournalLine) : undefined;
  if (line.type === 'finished') return typeof line.task === 'object' && line.task !== null && Array.isArray(line.files) ? (line as JournalLine) : undefined;
  return undefined;
}

/** Fold lines into jobs, in submission order. A job with a POST and no answer is `unknown` (read at start). */
export function jobsOf(lines: readonly JournalLine[]): StudioJob[] {
  const jobs = new Map<string, StudioJob>();
  for (const line of lines) {
    if (line.type === 'submitting') {
      if (!jobs.has(line.id)) jobs.set(line.id, { id: line.id, op: line.op, params: line.params, submitted_at: line.at, state: 'unknown' });
      continue;
    }
    const job = jobs.get(line.id);
    if (!job) continue;
    if (line.type === 'answered') {
      if (line.task_id) Object.assign(job, { state: 'running', task_id: line.task_id });
      else Object.assign(job, { state: 'refused', status: line.status });
    } else Object.assign(job, { state: 'finished', task: line.task, files: line.files }, line.error !== undefined ? { error: line.error } : {});
  }
  return [...jobs.values()];
}

/** The lock's content: who owns `DIR`. */
interface LockOwner {
  pid: number;
  host: string;
  url?: string;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * `DIR/journal.jsonl`, owned by this process while open (`DIR/studio.lock`). Writes are queued
 * one after the other; each resolves once its line is on disk (`fsync`), and a failed write
 * rejects (the submission it announced is then not sent).
 */
export class StudioJournal {
  readonly dir: string;
  readonly #handle: FileHandle;
  readonly #lock: string;
  readonly #lines: JournalLine[];
  /** Jobs whose POST is in flight in this process (their answer not journaled yet). */
  readonly #inFlight = new Set<string>();
  #queue: Promise<void> = Promise.resolve();

  private constructor(dir: string, handle: FileHandle, lock: string, lines: JournalLine[]) {
    this.dir = dir;
    this.#handle = handle;
    this.#lock = lock;
    this.#lines = lines;
  }

  /**
   * Take `dir` (created if missing) and read its journal. A second studio on the same `dir`
   * is refused, naming the first (its pid, host and URL); a lock left by a process gone from
   * this host is taken over, with `warn` saying so.
   */
  static async open(dir: string, owner: { warn: (message: string) => void }): Promise<StudioJournal> {
    await mkdir(join(dir, 'results'), { recursive: true });
    const lock = join(dir, 'studio.lock');
    const me: LockOwner = { pid: process.pid, host: hostname() };
    for (let tries = 0; ; tries++) {
      try {
        await writeFile(lock, `${JSON.stringify(me)}\n`, { flag: 'wx' });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw error;
        const text = await readFile(lock, 'utf8').catch(() => '');
        let other: Partial<LockOwner> = {};
        try {
          other = JSON.parse(text) as Partial<LockOwner>;
        } catch {
          // A torn lock: its writer died while writing it; taken over below.
        }
        const gone = other.host === me.host && typeof other.pid === 'number' && !alive(other.pid);
        if (!gone && text.trim() !== '')
          throw new Error(`${dir} is in use by another studio (pid ${other.pid ?? '?'} on ${other.host ?? '?'}${other.url ? `, ${other.url.replace(/\?.*$/, '')}` : ''}): stop it, or pass another --dir`);
        owner.warn(`omnimedia studio: taking over ${lock} from pid ${other.pid ?? '?'}, which is gone`);
        await unlink(lock);
      }
    }
    const file = join(dir, 'journal.jsonl');
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : Promise.reject(error)));
    const lines = text.split('\n').filter((line) => line.trim() !== '').map(parseLine).filter((line) => line !== undefined);
    const handle = await open(file, 'a');
    return new StudioJournal(dir, handle, lock, lines);
  }

  /** A new job id: time-ordered and file-system safe. */
  static newId(): string {
    return `job-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  }

  /** Every job, in submission order; those in flight in this process are `submitting`. */
  jobs(): StudioJob[] {
    return jobsOf(this.#lines).map((job) => (this.#inFlight.has(job.id) ? { ...job, state: 'submitting' } : job));
  }

  /** Append `line`; resolves once it is on disk. */
  write(line: JournalLine): Promise<void> {
    const write = this.#queue.then(async () => {
      await this.#handle.write(`${JSON.stringify(line)}\n`);
      await this.#handle.sync();
      this.#lines.push(line);
      if (line.type === 'submitting') this.#inFlight.add(line.id);
      else this.#inFlight.delete(line.id);
    });
    // A failed write fails its caller; the next one still runs.
    this.#queue = write.catch(() => {});
    return write;
  }

  /** Name the studio's address (never its token) in the lock, for a second studio's refusal. */
  async announce(url: string): Promise<void> {
    await writeFile(this.#lock, `${JSON.stringify({ pid: process.pid, host: hostname(), url } satisfies LockOwner)}\n`);
  }

  /** Wait for the queued writes, close the file and give up the lock. */
  async close(): Promise<void> {
    await this.#queue;
    await this.#handle.close();
    await unlink(this.#lock).catch(() => {});
  }
}
