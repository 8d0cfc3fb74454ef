/**
 * Download targets on Node's file system and streams: a path (written beside it as `.part`,
 * renamed at the end) or a Node `Writable`. Browser builds get node-targets.browser.ts instead
 * (see tsup.config.ts).
 */
import { ValidationError } from '../errors.ts';
import type { DownloadTarget, NodeWritableLike } from './targets.ts';

const NODE_FS = 'node:fs';
const NODE_FS_PROMISES = 'node:fs/promises';
const NODE_PATH = 'node:path';
const NODE_STREAM = 'node:stream';
const NODE_STREAM_PROMISES = 'node:stream/promises';

type NodeModules = {
  fs: { createWriteStream(path: string, options?: { flags?: string }): NodeWritableLike };
  fsp: {
    stat(path: string): Promise<{ isDirectory(): boolean }>;
    rename(from: string, to: string): Promise<void>;
    rm(path: string, options: { force: boolean }): Promise<void>;
    mkdir(path: string, options: { recursive: boolean }): Promise<unknown>;
  };
  path: { join(...parts: string[]): string; dirname(path: string): string; basename(path: string): string };
  Readable: { fromWeb(stream: ReadableStream<Uint8Array>): unknown };
  pipeline(...streams: unknown[]): Promise<void>;
};

const importNode = (specifier: string) => import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);

async function node(): Promise<NodeModules> {
  const [fs, fsp, path, stream, streamPromises] = await Promise.all(
    [NODE_FS, NODE_FS_PROMISES, NODE_PATH, NODE_STREAM, NODE_STREAM_PROMISES].map(importNode),
  );
  return { fs, fsp, path, Readable: stream.Readable, pipeline: streamPromises.pipeline } as NodeModules;
}

/**
 * Before any request: a path target that cannot be what it is used as, a `ValidationError` that
 * says what to do (it was a network error after the download). `directory`: the target is a
 * task's directory; else one file's path.
 */
export async function checkTarget(to: DownloadTarget | undefined, directory: boolean): Promise<void> {
  if (typeof to !== 'string') return;
  const { fsp } = await node();
  const found = await fsp.stat(to).catch(() => undefined);
  if (!found || found.isDirectory() === directory) return;
  throw new ValidationError([
    {
      path: 'to',
      message: directory
        ? `"${to}" is a file: give a directory for a task's outputs (or a function choosing each output's target)`
        : `"${to}" is a directory: give a file path for one URL (or download the task, whose \`to\` is a directory)`,
    },
  ]);
}

/** Stream `body` into a Node `Writable`. */
export async function toNodeWritable(body: ReadableStream<Uint8Array>, to: NodeWritableLike): Promise<void> {
  const { Readable, pipeline } = await node();
  await pipeline(Readable.fromWeb(body), to);
}

/** Files written beside their targets, to be renamed into place together (a task's outputs: all or none). */
export type Staged = [partial: string, target: string][];

/**
 * Stream `body` to the file `to`, or to `name` inside the directory `to` when a name is given;
 * resolves with the path. Written beside the target and renamed at the end: a failed download
 * leaves nothing behind, and an older file of the same name survives it. With `staged`, the
 * rename is left to `settleStaged`.
 */
export async function toPath(body: ReadableStream<Uint8Array>, to: string, name: string | undefined, staged?: Staged): Promise<string> {
  const { fs, fsp, path, Readable, pipeline } = await node();
  const target = name === undefined ? to : path.join(to, name);
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const partial = `${target}.${Math.random().toString(36).slice(2, 10)}.part`;
  try {
    await pipeline(Readable.fromWeb(body), fs.createWriteStream(partial, { flags: 'wx' }));
    if (staged) staged.push([partial, target]);
    else await fsp.rename(partial, target);
  } catch (error) {
    await fsp.rm(partial, { force: true });
    throw error;
  }
  return target;
}

/** Rename every staged file into place (`keep`), or remove them all. */
export async function settleStaged(staged: Staged, keep: boolean): Promise<void> {
  if (staged.length === 0) return;
  const { fsp } = await node();
  for (const [partial, target] of staged) await (keep ? fsp.rename(partial, target) : fsp.rm(partial, { force: true }));
}
