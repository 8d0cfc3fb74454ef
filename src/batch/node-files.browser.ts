/**
 * The browser twin of node-files.ts: a page has no file system, so a batch there takes its jobs
 * from an iterable and its journal from a `BatchJournal` port, never from a path. Browser
 * builds use this module instead (see tsup.config.ts).
 */
import type { BatchJournal } from '../coordination/batch-journal.ts';
import { ValidationError } from '../errors.ts';

export interface JsonLine {
  line: number;
  value?: unknown;
  error?: string;
}

function noFileSystem(field: string, what: string): never {
  throw new ValidationError([{ path: field, message: `${what} needs Node, Deno or Bun (a file system)` }], 'batch');
}

// eslint-disable-next-line require-yield
export async function* readJsonLines(_file: string): AsyncGenerator<JsonLine[]> {
  noFileSystem('jobs', 'a JSONL file of jobs: in a page, give an array or an iterable of jobs;');
}

export async function resolvePath(file: string, _directory: string | undefined): Promise<string> {
  noFileSystem('params', `the local file "${file}": in a page, upload it first and give its URL;`);
}

export async function directoryOf(_file: string): Promise<string> {
  noFileSystem('jobs', 'a JSONL file of jobs');
}

export async function removePartialFiles(_directory: string, _ids: ReadonlySet<string>): Promise<void> {}

export async function isFile(_file: string): Promise<boolean> {
  return false;
}

export function openFileJournal(_file: string): Promise<BatchJournal> {
  noFileSystem('journal', 'a journal file: in a page, give a BatchJournal (omnimedia/coordination);');
}
