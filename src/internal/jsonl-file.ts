/**
 * JSON Lines files, the one reader and repairer of the batch's files (its jobs, its journal,
 * the CLI's results.jsonl): lines read a chunk at a time and split in linear time, each line
 * parsed on its own (a foreign or torn line costs only itself), a last line cut short by a
 * crash removed before anything is appended, and writes that are whole or fail (a short write
 * is finished, or its error thrown). Node only: the browser builds never import it.
 */

const importNode = (specifier: string) => import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
const NODE_FS = 'node:fs';
const NODE_FSP = 'node:fs/promises';

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
 * A chunk is searched for line breaks on its own, the unfinished line kept as pieces: splitting
 * the unfinished line again at each chunk took 63 s for one 64 MiB line.
 */
export async function* readJsonLines(file: string): AsyncGenerator<JsonLine[]> {
  const fs = (await importNode(NODE_FS)) as typeof import('node:fs');
  const decoder = new TextDecoder();
  let line = 0;
  let pieces: string[] = [];
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
    const text = decoder.decode(chunk as Uint8Array, { stream: true });
    const batch: JsonLine[] = [];
    let start = 0;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', start)) {
      pieces.push(text.slice(start, at));
      parse(pieces.join(''), batch);
      pieces = [];
      start = at + 1;
    }
    if (start < text.length) pieces.push(text.slice(start));
    if (batch.length > 0) yield batch;
  }
  const last: JsonLine[] = [];
  const tail = pieces.join('') + decoder.decode();
  if (tail !== '') parse(tail, last);
  if (last.length > 0) yield last;
}

/**
 * Remove a last line a crash cut short (everything after the last line break), so that what is
 * appended next starts a line of its own; the size after. Lines before it are never touched.
 */
export async function repairTail(file: string): Promise<number> {
  const fsp = (await importNode(NODE_FSP)) as Fsp;
  const found = await fsp.stat(file).catch(() => undefined);
  if (!found) return 0;
  const size = found.size;
  const tail = Buffer.alloc(Math.min(size, 64 * 1024));
  const reader = await fsp.open(file, 'r');
  let whole = -1;
  try {
    for (let end = size; end > 0 && whole < 0; ) {
      const start = Math.max(0, end - tail.length);
      const { bytesRead } = await reader.read(tail, 0, end - start, start);
      const at = tail.subarray(0, bytesRead).lastIndexOf(10);
      if (at >= 0) whole = start + at + 1;
      end = start;
    }
  } finally {
    await reader.close();
  }
  if (whole < 0) whole = 0;
  if (whole < size) await fsp.truncate(file, whole);
  return whole;
}

/**
 * Write all of `text` at the end of `handle`'s file, then flush it to disk (`fdatasync`). A
 * short write (a file-size limit, a full disk: `write()` stores part and reports the count) is
 * finished with the rest, or its error thrown: never a part reported as the whole.
 */
export async function appendWhole(handle: import('node:fs/promises').FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    if (bytesWritten <= 0) throw new Error(`the write stored nothing (${done} of ${bytes.length} bytes)`);
    done += bytesWritten;
  }
  await handle.datasync();
}
