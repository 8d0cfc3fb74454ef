import { extname, resolve } from 'node:path';
import type { TaskResult } from 'omnimedia';
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
