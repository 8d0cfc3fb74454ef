import { APIConnectionError, OmniMediaError, ValidationError } from '../errors.ts';
import { contentLength } from '../internal/content-length.ts';
import type { TransferProgress } from '../uploads/body.ts';
import { APIResource } from './resource.ts';

/**
 * A Node `Writable` (`fs.createWriteStream(...)`, `process.stdout`, an HTTP response),
 * described by shape so that browser projects need no Node types.
 *
 * @example
 * ```ts
 * import { createWriteStream } from 'node:fs';
 * await client.files.download(task, { to: () => createWriteStream('./out.png') });
 * ```
 */
export interface NodeWritableLike {
  write(chunk: Uint8Array): unknown;
  end(): unknown;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

/**
 * Where a download goes: a file path (Node), a web `WritableStream`, or a Node `Writable`.
 *
 * @example
 * ```ts
 * await client.files.download(url, { to: './result.png' });            // a path (Node)
 * await client.files.download(url, { to: await fileHandle.createWritable() }); // a web WritableStream
 * ```
 */
export type DownloadTarget = string | WritableStream<Uint8Array> | NodeWritableLike;

/**
 * A task with results, as `tasks.retrieve`/`.wait()` return it.
 *
 * @example
 * ```ts
 * const task: TaskWithOutputs = await client.tasks.wait(id);
 * await client.files.download(task, { to: './results/' });
 * ```
 */
export interface TaskWithOutputs {
  task_id?: string | undefined;
  status?: string | undefined;
  data?: readonly { url: string }[] | null | undefined;
}

/**
 * Progress of one file; for a task, `index` is its place in `data`.
 *
 * @example
 * ```ts
 * await client.files.download(task, { to: './out/', onProgress: ({ index, loaded, total }) => console.log(index, loaded, total) });
 * ```
 */
export interface DownloadProgress extends TransferProgress {
  url: string;
  index: number;
}

/**
 * Options of `client.files.download`.
 *
 * @example
 * ```ts
 * const blob = await client.files.download(url, { timeout: 120_000, signal: AbortSignal.timeout(300_000) });
 * ```
 */
export interface DownloadOptions {
  /** Called as bytes arrive; `total` from Content-Length, `undefined` without it. */
  onProgress?: (progress: DownloadProgress) => void;
  /** Abort the download; a file being written is removed. */
  signal?: AbortSignal;
  /** ms until the response starts (default: the client's `timeout`). */
  timeout?: number;
  /**
   * ms the download may go without receiving a byte once the response has started (default
   * 30,000); then `APITimeoutError`. A large file may take long in all; a stalled one may not.
   */
  idleTimeout?: number;
  /** Retries before the response starts (default: the client's `maxRetries`). */
  maxRetries?: number;
}

/**
 * For a task: a directory to write every output into, or a target per output.
 *
 * @example
 * ```ts
 * await client.files.download(task, { to: './results/' });
 * await client.files.download(task, { to: ({ index }) => `./frame-${index}.png` });
 * ```
 */
export type TaskDownloadTarget = string | ((output: { url: string; index: number; taskId: string | undefined }) => DownloadTarget);

// Specifiers in variables so browser bundlers leave the Node-only branch alone.
const NODE_FS = 'node:fs';
const NODE_FS_PROMISES = 'node:fs/promises';
const NODE_PATH = 'node:path';
const NODE_STREAM = 'node:stream';
const NODE_STREAM_PROMISES = 'node:stream/promises';

type NodeModules = {
  fs: { createWriteStream(path: string, options?: { flags?: string }): NodeWritableLike };
  fsp: {
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

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/quicktime': '.mov',
};

function extensionOf(url: string, contentType: string | null): string {
  const fromUrl = /\.[a-z0-9]{2,5}$/i.exec(new URL(url).pathname)?.[0];
  return fromUrl ?? EXTENSIONS[(contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''] ?? '';
}

/** The response body, counted as it is read. */
function counted(body: ReadableStream<Uint8Array>, total: number | undefined, report: ((p: TransferProgress) => void) | undefined) {
  if (!report) return body;
  let loaded = 0;
  report({ loaded, total });
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        controller.enqueue(chunk);
        report({ loaded, total });
      },
    }),
  );
}

/**
 * Downloads of result files (`data[].url`).
 *
 * @example
 * ```ts
 * const task = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse' }).wait();
 * const paths = await client.files.download(task, { to: './results/' });
 * ```
 */
export class Files extends APIResource {
  /**
   * Download a result file, or every output of a task. Streamed, never buffered, when written
   * to a path or a stream; a file that fails half-way is removed. Sends no API key.
   *
   * - a URL, no `to`: a `Blob` (any runtime);
   * - a URL, `to: './out.png'` (Node): the file, written via a temporary `.part` file; resolves with the path;
   * - a URL, `to: writable` (a web `WritableStream` or a Node `Writable`): streamed into it;
   * - a task: every `data[].url`, in order; `to` is then a directory (files `<task_id>-<index>.<ext>`)
   *   or a function choosing each output's target.
   *
   * @example
   * ```ts
   * const task = await client.images.generate({ model: 'omni-image', prompt: 'a fox', n: 2 }).wait();
   * const paths = await client.files.download(task, { to: './out' }); // ['out/<id>-0.png', 'out/<id>-1.png']
   * const blob = await client.files.download(task.data![0]!.url);
   * ```
   */
  download(url: string, options?: DownloadOptions & { to?: undefined }): Promise<Blob>;
  download(url: string, options: DownloadOptions & { to: string }): Promise<string>;
  download(url: string, options: DownloadOptions & { to: WritableStream<Uint8Array> | NodeWritableLike }): Promise<void>;
  download(task: TaskWithOutputs, options?: DownloadOptions & { to?: undefined }): Promise<Blob[]>;
  download(task: TaskWithOutputs, options: DownloadOptions & { to: string }): Promise<string[]>;
  download(task: TaskWithOutputs, options: DownloadOptions & { to: TaskDownloadTarget }): Promise<(string | undefined)[]>;
  async download(
    source: string | TaskWithOutputs,
    options: DownloadOptions & { to?: DownloadTarget | TaskDownloadTarget | undefined } = {},
  ): Promise<Blob | string | void | (Blob | string | undefined)[]> {
    const { to } = options;
    if (typeof source === 'string') {
      if (!URL.canParse(source)) throw new ValidationError([{ path: 'url', message: 'must be an absolute URL' }], 'files.download');
      if (typeof to === 'function') throw new ValidationError([{ path: 'to', message: 'a function target is for a task' }], 'files.download');
      return this.#one(source, 0, to, undefined, options);
    }
    const urls = (source?.data ?? []).map((d) => d?.url);
    if (urls.length === 0 || urls.some((u) => typeof u !== 'string' || !URL.canParse(u)))
      throw new ValidationError(
        [{ path: 'data', message: `the task has no result URLs to download (status ${String(source?.status)})` }],
        'files.download',
      );
    if (to !== undefined && typeof to !== 'string' && typeof to !== 'function')
      throw new ValidationError(
        [{ path: 'to', message: 'for a task, give a directory or a function choosing each output’s target' }],
        'files.download',
      );
    const taskId = source.task_id;
    return Promise.all(
      urls.map((url, index) =>
        this.#one(url, index, typeof to === 'function' ? to({ url, index, taskId }) : to, typeof to === 'string' ? { directory: to, taskId } : undefined, options).catch(
          (error: unknown) => {
            // A download of a task's output is about that task: its errors say which.
            if (error instanceof OmniMediaError) error.taskId ??= taskId;
            throw error;
          },
        ),
      ),
    );
  }

  async #one(
    url: string,
    index: number,
    to: DownloadTarget | undefined,
    into: { directory: string; taskId: string | undefined } | undefined,
    options: DownloadOptions,
  ): Promise<Blob | string | undefined> {
    const what = `files.download(${url})`;
    const { response, body: content } = await this.client.http.open(url, {
      what,
      signal: options.signal,
      timeout: options.timeout,
      idleTimeout: options.idleTimeout,
      maxRetries: options.maxRetries,
    });
    const total = contentLength(response.headers.get('content-length'), response.headers.get('content-encoding'));
    const body = counted(
      content,
      total,
      options.onProgress && ((p) => options.onProgress?.({ ...p, url, index })),
    );
    const failed = (error: unknown) => {
      if (options.signal?.aborted) return options.signal.reason;
      if (error instanceof ValidationError || error instanceof APIConnectionError) return error;
      return new APIConnectionError(`${what}: the download broke off (${String((error as Error)?.message ?? error)})`, { cause: error });
    };
    try {
      if (to === undefined) return await new Response(body).blob();
      if (to instanceof WritableStream) {
        await body.pipeTo(to, options.signal ? { signal: options.signal } : {});
        return undefined;
      }
      const { fs, fsp, path, Readable, pipeline } = await node();
      if (typeof to !== 'string') {
        await pipeline(Readable.fromWeb(body), to);
        return undefined;
      }
      const name = `${(into?.taskId ?? 'output').replace(/[^\w.-]/g, '_')}-${index}${extensionOf(url, response.headers.get('content-type'))}`;
      const target = into === undefined ? to : path.join(into.directory, name);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      // Written beside the target and renamed at the end: a failed download leaves nothing
      // behind, and an older file of the same name survives it.
      const partial = `${target}.${Math.random().toString(36).slice(2, 10)}.part`;
      try {
        await pipeline(Readable.fromWeb(body), fs.createWriteStream(partial, { flags: 'wx' }));
        await fsp.rename(partial, target);
      } catch (error) {
        await fsp.rm(partial, { force: true });
        throw error;
      }
      return target;
    } catch (error) {
      await body.cancel().catch(() => {});
      throw failed(error);
    }
  }

}
