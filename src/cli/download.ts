import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { ValidationError, type TaskResult } from 'omnimedia';
import type { Context } from './context.ts';
import type { TransferProgress } from './progress.ts';

/** A result written to disk. */
export interface SavedFile {
  url: string;
  path: string;
  bytes: number;
}

/**
 * Download every `data[].url` of a finished task into `dir` with the SDK's
 * `client.files.download` (streamed to disk; a partial file never stays behind), with a
 * progress bar per file.
 */
export async function downloadResults(ctx: Context, task: TaskResult, dir: string): Promise<SavedFile[]> {
  const bars = new Map<number, TransferProgress>();
  const loaded = new Map<number, number>();
  try {
    const paths = await ctx.client().files.download(task, {
      to: dir,
      signal: ctx.signal,
      onProgress: ({ url, index, loaded: bytes, total }) => {
        let bar = bars.get(index);
        if (!bar) {
          // The SDK names the file `<task id>-<index><ext>`; the bar says the same.
          bar = ctx.progress.transfer('downloading', `${task.task_id}-${index}${extname(new URL(url).pathname)}`, total);
          bars.set(index, bar);
        }
        loaded.set(index, bytes);
        bar.update(bytes, total);
      },
    });
    return paths.map((path, index) => ({ url: task.data?.[index]?.url ?? '', path: resolve(path), bytes: loaded.get(index) ?? 0 }));
  } finally {
    for (const bar of bars.values()) bar.end();
  }
}

/**
 * `--out DIR`, checked before anything is sent: a refusal the download would meet after the
 * submission and the wait is a `ValidationError` on `out` now (exit 2, "nothing was sent"),
 * never a billed task with nowhere to go. DIR is an existing directory this user can write to,
 * or one the download can make (`mkdir -p`): its nearest existing ancestor is a writable
 * directory. Nothing is made here; a name taken inside DIR is known only with the task's id,
 * and the download refuses it then (the task id printed).
 */
export async function checkOutDir(dir: string): Promise<void> {
  let existing = resolve(dir);
  let found = await stat(existing).catch(() => undefined);
  while (!found && dirname(existing) !== existing) {
    existing = dirname(existing);
    found = await stat(existing).catch(() => undefined);
  }
  const made = existing !== resolve(dir);
  const refuse = (why: string) => {
    throw new ValidationError([{ path: 'out', message: made ? `"${dir}" cannot be made: ${why}` : why }], '--out');
  };
  if (found && !found.isDirectory())
    refuse(made ? `"${existing}" is a file` : `"${dir}" is a file: --out takes the directory the results go into (they are named <task id>-<index>.<ext> there)`);
  if (!(await access(existing, constants.W_OK | constants.X_OK).then(() => true, () => false))) refuse(`"${existing}" is not writable`);
}
