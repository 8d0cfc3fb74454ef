/**
 * What a batch needs of Node's file system: a JSON Lines file read a line at a time (a
 * 100,000-line file is never whole in memory), local paths resolved against the file's directory,
 * and the journal as a file flushed to disk at each entry. Browser builds get
 * node-files.browser.ts instead (see tsup.config.ts), where a path is a `ValidationError`.
 */
import type { BatchJournal, BatchJournalEntry } from '../coordination/batch-journal.ts';

const importNode = (specifier: string) => import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
const NODE_FS = 'node:fs';
const NODE_FSP = 'node:fs/promises';
const NODE_PATH = 'node:path';

type Path = typeof import('node:path');
type Fsp = typeof import('node:fs/promises');

/** One line of a JSONL file: its value, or why it is not JSON. Blank lines are skipped. */
export interface JsonLine {
  line: number;
  value?: unknown;
  error?: string;
}

/**
 * The lines of a JSON Lines file, a chunk of 64 KiB at a time (never the whole file in memory),
 * each line parsed. Lines come in batches, one per chunk read: an await per line (readline's
 * async iterator, or a generator's yield) cost 10 to 30 MiB more peak RSS over 100,000 lines.
 */
export async function* readJsonLines(file: string): AsyncGenerator<JsonLine[]> {
  const fs = (await importNode(NODE_FS)) as typeof import('node:fs');
  const decoder = new TextDecoder();
  let line = 0;
  let rest = '';
  const parse = (text: string, into: JsonLine[]): void => {
    line++;
    const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (trimmed.trim() === '') return;
    try {
      into.push({ line, value: JSON.parse(trimmed) as unknown });
    } catch (error) {
      into.push({ line, error: (error as Error).message });
    }
  };
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 64 * 1024 })) {
    const lines = (rest + decoder.decode(chunk as Uint8Array, { stream: true })).split('\n');
    rest = lines.pop() ?? '';
    const batch: JsonLine[] = [];
    for (const text of lines) parse(text, batch);
    if (batch.length > 0) yield batch;
  }
  const last: JsonLine[] = [];
  const tail = rest + decoder.decode();
  if (tail !== '') parse(tail, last);
  if (last.length > 0) yield last;
}

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
 * where it stands. Each `write` resolves once its line is on disk (written, then `fdatasync`);
 * the entries written while a flush runs go to disk together at the next one (one sync for many
 * jobs: with 64 submissions in flight, a sync per entry was the bottleneck). A line cut short by
 * a crash is dropped on opening.
 */
class FileBatchJournal implements BatchJournal {
  readonly #handle: import('node:fs/promises').FileHandle;
  readonly #entries: Map<string, BatchJournalEntry>;
  #queue: { text: string; done: () => void; failed: (error: unknown) => void }[] = [];
  #flushing: Promise<void> | undefined;

  private constructor(handle: import('node:fs/promises').FileHandle, entries: Map<string, BatchJournalEntry>) {
    this.#handle = handle;
    this.#entries = entries;
  }

  /** Open (or create) the journal at `file`, reading what an earlier run wrote. */
  static async open(file: string): Promise<FileBatchJournal> {
    const [fsp, path] = (await Promise.all([importNode(NODE_FSP), importNode(NODE_PATH)])) as [Fsp, Path];
    await fsp.mkdir(path.dirname(path.resolve(file)), { recursive: true });
    const entries = new Map<string, BatchJournalEntry>();
    let size = 0;
    let whole = 0;
    const existing = await fsp.stat(file).catch(() => undefined);
    if (existing) {
      for await (const batch of readJsonLines(file))
        for (const { value } of batch) {
          const entry = value as Partial<BatchJournalEntry> | undefined;
          if (entry && typeof entry.id === 'string' && typeof entry.state === 'string') entries.set(entry.id, entry as BatchJournalEntry);
        }
      size = existing.size;
      // Up to the last line break: what follows it is a line a crash cut short.
      const tail = Buffer.alloc(Math.min(size, 64 * 1024));
      const reader = await fsp.open(file, 'r');
      try {
        let end = size;
        whole = -1;
        while (end > 0 && whole < 0) {
          const start = Math.max(0, end - tail.length);
          const { bytesRead } = await reader.read(tail, 0, end - start, start);
          const at = tail.subarray(0, bytesRead).lastIndexOf(10);
          if (at >= 0) whole = start + at + 1;
          end = start;
        }
        if (whole < 0) whole = 0;
      } finally {
        await reader.close();
      }
      if (whole < size) await fsp.truncate(file, whole);
    }
    const handle = await fsp.open(file, 'a');
    return new FileBatchJournal(handle, entries);
  }

  read(): BatchJournalEntry[] {
    return [...this.#entries.values()];
  }

  write(entry: BatchJournalEntry): Promise<void> {
    this.#entries.set(entry.id, entry);
    return new Promise<void>((done, failed) => {
      this.#queue.push({ text: `${JSON.stringify(entry)}\n`, done, failed });
      this.#flushing ??= this.#flush();
    });
  }

  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const group = this.#queue;
      this.#queue = [];
      try {
        await this.#handle.write(group.map((item) => item.text).join(''));
        await this.#handle.datasync();
        for (const item of group) item.done();
      } catch (error) {
        for (const item of group) item.failed(error);
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
