/**
 * What a batch needs of Node's file system: a JSON Lines file read a line at a time (a
 * 100,000-line file is never whole in memory), local paths resolved against the file's directory,
 * and the journal as a file flushed to disk at each entry. Browser builds get
 * node-files.browser.ts instead (see tsup.config.ts), where a path is a `ValidationError`.
 */
import { isJobState, type BatchJournal, type BatchJournalEntry } from '../coordination/batch-journal.ts';
import { appendWhole, readJsonLines, repairTail } from '../internal/jsonl-file.ts';

const importNode = (specifier: string) => import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
const NODE_FSP = 'node:fs/promises';
const NODE_PATH = 'node:path';

type Path = typeof import('node:path');
type Fsp = typeof import('node:fs/promises');

export { readJsonLines, type JsonLine } from '../internal/jsonl-file.ts';

/** A partial download as downloads/node-targets.ts names it: `<stem>.<up to 8 of [0-9a-z]>.part`. */
const PARTIAL = /^(.+)\.[0-9a-z]{1,8}\.part$/;

/**
 * Remove the partial downloads a stopped run left in `directory` for the jobs `ids` (`<id>` or
 * `<id>-<k>` as its stem): a SIGKILL runs no cleanup, so the run that takes the jobs up again
 * does, before its own downloads start. Anyone else's files stay; a file that cannot be removed
 * is left (the download writes a new one of its own).
 */
export async function removePartialFiles(directory: string, ids: ReadonlySet<string>): Promise<void> {
  if (ids.size === 0) return;
  const fsp = (await importNode(NODE_FSP)) as Fsp;
  const path = (await importNode(NODE_PATH)) as Path;
  const names = await fsp.readdir(directory).catch(() => [] as string[]);
  const ours = (stem: string) => ids.has(stem) || ids.has(stem.replace(/-\d+$/, ''));
  await Promise.all(
    names.filter((name) => ours(PARTIAL.exec(name)?.[1] ?? '')).map((name) => fsp.rm(path.join(directory, name), { force: true }).catch(() => {})),
  );
}

/** `file` (a job's local path) resolved against `directory`, or the current directory. */
export async function resolvePath(file: string, directory: string | undefined): Promise<string> {
  const path = (await importNode(NODE_PATH)) as Path;
  return path.resolve(directory ?? process.cwd(), file);
}

/** The directory of a file, absolute. */
export async function directoryOf(file: string): Promise<string> {
  const path = (await importNode(NODE_PATH)) as Path;
  return path.dirname(path.resolve(file));
}

/** `true` when `file` exists and is a regular file. */
export async function isFile(file: string): Promise<boolean> {
  const fsp = (await importNode(NODE_FSP)) as Fsp;
  return (await fsp.stat(file).catch(() => undefined))?.isFile() ?? false;
}

/**
 * A batch journal in a JSON Lines file: one entry a line, appended; the last line of a job is
 * where it stands. Each `write` resolves once its line is whole on disk (every byte written, a
 * short write finished, then `fdatasync`); the entries written while a flush runs go to disk
 * together at the next one (one sync for many jobs: with 64 submissions in flight, a sync per
 * entry was the bottleneck). A write that fails (a full disk, a file-size limit) fails every
 * later write too, after cutting the file back to its last whole line: nothing more is sent
 * without its record. A line cut short by a crash is dropped on opening; a line that is not an
 * entry costs only itself.
 */
class FileBatchJournal implements BatchJournal {
  readonly #file: string;
  readonly #handle: import('node:fs/promises').FileHandle;
  readonly #entries: Map<string, BatchJournalEntry>;
  #queue: { text: string; done: () => void; failed: (error: unknown) => void }[] = [];
  #flushing: Promise<void> | undefined;
  /** Bytes of whole lines in the file. */
  #size: number;
  /** The first failed write: every later one fails with it. */
  #broken: Error | undefined;

  private constructor(file: string, handle: import('node:fs/promises').FileHandle, entries: Map<string, BatchJournalEntry>, size: number) {
    this.#file = file;
    this.#handle = handle;
    this.#entries = entries;
    this.#size = size;
  }

  /** Open (or create) the journal at `file`, reading what an earlier run wrote. */
  static async open(file: string): Promise<FileBatchJournal> {
    const [fsp, path] = (await Promise.all([importNode(NODE_FSP), importNode(NODE_PATH)])) as [Fsp, Path];
    await fsp.mkdir(path.dirname(path.resolve(file)), { recursive: true });
    const entries = new Map<string, BatchJournalEntry>();
    const size = await repairTail(file);
    if (size > 0)
      for await (const batch of readJsonLines(file))
        for (const { value } of batch) {
          const entry = journalEntryOf(value);
          if (entry) entries.set(entry.id, entry);
        }
    const handle = await fsp.open(file, 'a');
    return new FileBatchJournal(file, handle, entries, size);
  }

  read(): BatchJournalEntry[] {
    return [...this.#entries.values()];
  }

  write(entry: BatchJournalEntry): Promise<void> {
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise<void>((done, failed) => {
      this.#queue.push({ text: `${JSON.stringify(entry)}\n`, done: () => (this.#entries.set(entry.id, entry), done()), failed });
      this.#flushing ??= this.#flush();
    });
  }

  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const group = this.#queue;
      this.#queue = [];
      try {
        if (this.#broken) throw this.#broken;
        const text = group.map((item) => item.text).join('');
        await appendWhole(this.#handle, text);
        this.#size += Buffer.byteLength(text);
        for (const item of group) item.done();
      } catch (error) {
        this.#broken ??= new Error(`the journal ${this.#file} could not be written (${(error as Error)?.message ?? String(error)})`, { cause: error });
        // Its last whole line stays the end: a part of a line is no record.
        const fsp = (await importNode(NODE_FSP)) as Fsp;
        await fsp.truncate(this.#file, this.#size).catch(() => {});
        for (const item of group) item.failed(this.#broken);
      }
    }
    this.#flushing = undefined;
  }

  async close(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    await this.#handle.close();
  }
}

/** The journal at a path: a {@link FileBatchJournal}. */
export function openFileJournal(file: string): Promise<BatchJournal> {
  return FileBatchJournal.open(file);
}

/** A journal line's entry, when it is one (an id and a state of the closed set); else nothing: a foreign line costs only itself. */
function journalEntryOf(value: unknown): BatchJournalEntry | undefined {
  const entry = value as Partial<BatchJournalEntry> | undefined;
  return entry && typeof entry.id === 'string' && isJobState(entry.state) ? (entry as BatchJournalEntry) : undefined;
}
