/**
 * Download targets on Node's file system and streams: a path (written beside it as `.part`,
 * renamed at the end) or a Node `Writable`. Browser builds get node-targets.browser.ts instead
 * (see tsup.config.ts).
 */
import { OmniMediaError, ValidationError } from '../errors.ts';
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
    link(existing: string, created: string): Promise<void>;
    readdir(path: string): Promise<string[]>;
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
 * Where a download to a path goes: one file's path (`file`), or a task's directory and the
 * output's name there without its extension (`base`), which the served type decides once the
 * body has arrived (`extension`).
 */
export type PathTarget = { file: string } | { directory: string; base: string; extension: () => string };

/** How a download to a path is put in place. */
export interface Placement {
  /** Replace a file already at the target (else an existing file is an error, never replaced). */
  overwrite: boolean;
  /** A task's outputs: left beside their targets, for `settleStaged` to put in place together. */
  staged?: Staged | undefined;
}

const exists = (target: string) =>
  new ValidationError([{ path: 'to', message: `"${target}" exists: pass overwrite: true to replace it, or choose another path` }], 'files.download');

/** An extension as a task's output gets one (download.ts): a dot and a few letters or digits. */
const EXTENSION = /^\.[a-z0-9]{1,8}$/i;

/**
 * Before any request: a path target that cannot be what it is used as, or that holds what the
 * download would replace without `overwrite`, is a `ValidationError` that says what to do (it
 * was a network error after the download, or a file silently replaced). `base`: the target is a
 * task's directory and this output's name there, without its extension (an existing
 * `<base>.<any extension>` counts); else `to` is one file's path.
 */
export async function checkTarget(to: DownloadTarget | undefined, base: string | undefined, overwrite: boolean): Promise<void> {
  if (typeof to !== 'string') return;
  const { fsp, path } = await node();
  const directory = base !== undefined;
  const found = await fsp.stat(to).catch(() => undefined);
  if (!found) return;
  if (found.isDirectory() !== directory)
    throw new ValidationError([
      {
        path: 'to',
        message: directory
          ? `"${to}" is a file: give a directory for a task's outputs (or a function choosing each output's target)`
          : `"${to}" is a directory: give a file path for one URL (or download the task, whose \`to\` is a directory)`,
      },
    ]);
  if (overwrite) return;
  if (!directory) throw exists(to);
  const taken = (await fsp.readdir(to)).find((entry) => entry === base || (entry.startsWith(base) && EXTENSION.test(entry.slice(base.length))));
  if (taken !== undefined) throw exists(path.join(to, taken));
}

/** Stream `body` into a Node `Writable`. */
export async function toNodeWritable(body: ReadableStream<Uint8Array>, to: NodeWritableLike): Promise<void> {
  const { Readable, pipeline } = await node();
  await pipeline(Readable.fromWeb(body), to);
}

/** Files written beside their targets, to be put in place together (a task's outputs: all or none). */
export type Staged = [partial: string, target: string][];

/**
 * Stream `body` to its target; resolves with the path. Written beside the target as
 * `<name>.<random>.part` and put in place at the end (see `place`): a failed download leaves
 * nothing behind, and an older file of the same name survives it. With `staged`, placing is
 * left to `settleStaged`.
 */
export async function toPath(body: ReadableStream<Uint8Array>, target: PathTarget, placement: Placement): Promise<string> {
  const { fs, fsp, path, Readable, pipeline } = await node();
  const stem = 'file' in target ? target.file : path.join(target.directory, target.base);
  await fsp.mkdir(path.dirname(stem), { recursive: true });
  const partial = `${stem}.${Math.random().toString(36).slice(2, 10)}.part`;
  let final: string;
  try {
    await pipeline(Readable.fromWeb(body), fs.createWriteStream(partial, { flags: 'wx' }));
    final = 'file' in target ? target.file : `${stem}${target.extension()}`;
    if (placement.staged) placement.staged.push([partial, final]);
    else await place(partial, final, placement.overwrite);
  } catch (error) {
    await fsp.rm(partial, { force: true });
    throw error;
  }
  return final;
}

/** Codes of a file system without hard links. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS', 'EMLINK']);

/**
 * Put a finished download in place: renamed over the target with `overwrite`; else linked to
 * it, which fails if a file is there (so one that appeared meanwhile is never replaced; a check
 * then a rename where the file system has no links), then the partial file is removed.
 */
async function place(partial: string, target: string, overwrite: boolean): Promise<void> {
  const { fsp } = await node();
  if (overwrite) return fsp.rename(partial, target);
  const appeared = () =>
    new OmniMediaError(`files.download: "${target}" appeared while the file was downloading; it was not replaced (pass overwrite: true to replace it)`);
  try {
    await fsp.link(partial, target);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EEXIST') throw appeared();
    if (!NO_LINKS.has(String(code))) throw error;
    if (await fsp.stat(target).then(() => true, () => false)) throw appeared();
    return fsp.rename(partial, target);
  }
  await fsp.rm(partial, { force: true });
}

/**
 * Put every staged file in place (`keep`), or remove them all. If one cannot be placed, those
 * already placed are removed again and every partial file too: all or none.
 */
export async function settleStaged(staged: Staged, keep: boolean, overwrite: boolean): Promise<void> {
  if (staged.length === 0) return;
  const { fsp } = await node();
  const placed: string[] = [];
  try {
    if (keep)
      for (const [partial, target] of staged) {
        await place(partial, target, overwrite);
        placed.push(target);
      }
  } catch (error) {
    if (!overwrite) for (const target of placed) await fsp.rm(target, { force: true });
    throw error;
  } finally {
    for (const [partial] of staged) await fsp.rm(partial, { force: true });
  }
}
