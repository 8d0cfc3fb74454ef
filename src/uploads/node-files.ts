/**
 * Files read from disk by path: Node, Deno and Bun. Browser builds get node-files.browser.ts
 * instead (see tsup.config.ts), so a page's bundle carries none of this.
 */
import { ValidationError } from '../errors.ts';
import { errorText } from '../internal/error-text.ts';

/**
 * Bytes per read when streaming a file. Small fresh chunks die young and are collected by the
 * frequent minor GCs; large ones pile up until a major GC. Measured on Node 24 (50 MiB upload,
 * peak RSS growth): 16 KiB +12 MiB, 32 KiB +13, 64 KiB +19, 256 KiB +41, Blob.stream() +36.
 */
export const READ_CHUNK_BYTES = 32 * 1024;

// The specifier is a variable so that browser bundlers leave the Node-only branch alone.
const NODE_FS = 'node:fs';
const NODE_FS_PROMISES = 'node:fs/promises';

interface FileHandleLike {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

type FsPromises = {
  open(path: string, flags: string): Promise<FileHandleLike>;
  stat(path: string): Promise<{ isDirectory(): boolean }>;
};
const fsPromises = () => import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_FS_PROMISES) as Promise<FsPromises>;

/** What went wrong with a path, said so that the caller knows what to do. */
function unreadable(path: string, field: string, error: unknown): ValidationError {
  const code = (error as { code?: string } | undefined)?.code;
  const message =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? `"${path}" was not found: check the path (relative paths start at ${process.cwd()})`
      : code === 'EISDIR'
        ? `"${path}" is a directory: give the path of a file`
        : code === 'EACCES' || code === 'EPERM'
          ? `"${path}" cannot be read: permission denied`
          : `cannot read "${path}": ${code ?? errorText(error)}`;
  return new ValidationError([{ path: field, message }]);
}

/** A file read from disk a chunk at a time, on demand; the handle closes at the end or on cancel. */
export async function readPath(path: string, field: string): Promise<ReadableStream<Uint8Array>> {
  const handle = await (await fsPromises()).open(path, 'r').catch((error: unknown) => {
    throw unreadable(path, field, error);
  });
  let position = 0;
  let closed = false;
  const close = async () => {
    if (!closed) {
      closed = true;
      await handle.close();
    }
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const chunk = new Uint8Array(READ_CHUNK_BYTES);
          const { bytesRead } = await handle.read(chunk, 0, chunk.byteLength, position);
          if (bytesRead === 0) {
            await close();
            return controller.close();
          }
          position += bytesRead;
          controller.enqueue(bytesRead === chunk.byteLength ? chunk : chunk.subarray(0, bytesRead));
        } catch (error) {
          await close().catch(() => {});
          throw error;
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

/**
 * The file at `path` as a Blob that reads lazily (`fs.openAsBlob`). A path that is no readable
 * file is a `ValidationError` saying which way (openAsBlob alone reports a missing file as
 * ERR_INVALID_ARG_VALUE, and a directory only when read, as a DOMException).
 */
export async function openPath(path: string, field: string): Promise<Blob> {
  const fs = (await import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_FS)) as {
    openAsBlob(path: string): Promise<Blob>;
  };
  try {
    if ((await (await fsPromises()).stat(path)).isDirectory()) throw Object.assign(new Error('a directory'), { code: 'EISDIR' });
    // openAsBlob reads lazily: the file is not loaded into memory here, nor when sent.
    return await fs.openAsBlob(path);
  } catch (error) {
    throw unreadable(path, field, error);
  }
}
