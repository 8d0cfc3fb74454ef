/**
 * The browser twin of node-files.ts: a page has no file system, so a path cannot be read.
 * Browser builds use this module instead (see tsup.config.ts).
 */
import { ValidationError } from '../errors.ts';

export const READ_CHUNK_BYTES = 32 * 1024;

function noFileSystem(path: string, field: string): never {
  throw new ValidationError([
    { path: field, message: `cannot read "${path}": a file path can be read only in Node, Deno or Bun; pass a Blob or File` },
  ]);
}

export async function readPath(path: string, field: string): Promise<ReadableStream<Uint8Array>> {
  noFileSystem(path, field);
}

export async function openPath(path: string, field: string): Promise<Blob> {
  noFileSystem(path, field);
}
