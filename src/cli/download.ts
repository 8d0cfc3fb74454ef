import { mkdir, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { APIConnectionError, APIError, type TaskResult } from 'omnimedia';
import type { Context } from './context.ts';

/** A result written to disk. */
export interface SavedFile {
  url: string;
  path: string;
  bytes: number;
}

const EXTENSIONS: Record<string, string> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/webp': '.webp', 'video/mp4': '.mp4' };

/** `task_x.png`, or `task_x-2.png` when the task made several files. */
function fileName(task: TaskResult, index: number, count: number, url: string, contentType: string | null): string {
  const fromUrl = URL.canParse(url) ? extname(new URL(url).pathname) : '';
  const fromType = contentType ? EXTENSIONS[contentType.split(';')[0]?.trim() ?? ''] : undefined;
  const extension = /^\.[a-z0-9]{1,5}$/i.test(fromUrl) ? fromUrl : (fromType ?? (task.media_type === 'video' ? '.mp4' : ''));
  return `${task.task_id}${count > 1 ? `-${index + 1}` : ''}${extension}`;
}

/**
 * Download every `data[].url` of a finished task into `dir`, one after another with a progress
 * bar each. A partial file is removed when a download fails or is interrupted.
 */
export async function downloadResults(ctx: Context, task: TaskResult, dir: string): Promise<SavedFile[]> {
  const urls = (task.data ?? []).map((item) => item.url);
  await mkdir(dir, { recursive: true });
  const saved: SavedFile[] = [];
  for (const [index, url] of urls.entries()) {
    const response = await fetch(url, { signal: ctx.signal }).catch((error: unknown) => {
      if (ctx.signal.aborted) throw error;
      throw new APIConnectionError(`download of ${url} failed: ${(error as Error).message}`, { cause: error, taskId: task.task_id });
    });
    if (!response.ok || !response.body) {
      throw new APIError(`download of ${url} failed with status ${response.status}`, {
        status: response.status,
        taskId: task.task_id,
      });
    }
    const name = fileName(task, index, urls.length, url, response.headers.get('content-type'));
    const path = resolve(join(dir, name));
    const length = Number(response.headers.get('content-length'));
    const bar = ctx.progress.transfer('downloading', name, length > 0 ? length : undefined);
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Uint8Array, _encoding, done) {
        bytes += chunk.byteLength;
        bar.update(bytes);
        done(null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), count, createWriteStream(path), {
        signal: ctx.signal,
      });
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    } finally {
      bar.end();
    }
    saved.push({ url, path, bytes });
  }
  return saved;
}
