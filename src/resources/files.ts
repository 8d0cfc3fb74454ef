import { checkRequestOptions } from '../option-checks.ts';
import type { DownloadOptions } from '../options.ts';
import { ValidationError, OmniMediaError } from '../errors.ts';
import { downloadOne } from '../downloads/download.ts';
import { settleStaged, type Staged } from '../downloads/node-targets.ts';
import type { DownloadTarget, NodeWritableLike, TaskDownloadTarget, TaskWithOutputs } from '../downloads/targets.ts';
import type { Telemetry, TelemetrySpan } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';

/**
 * Downloads of result files (`data[].url`).
 *
 * @example
 * ```ts
 * const task = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse' }).wait();
 * const paths = await client.files.download(task, { to: './results/' });
 * ```
 */
export class Files {
  readonly #http: HttpClient;
  readonly #telemetry: Telemetry | undefined;

  /** @internal */
  constructor(context: { http: HttpClient; telemetry?: Telemetry | undefined }) {
    this.#http = context.http;
    this.#telemetry = context.telemetry;
  }

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
  /** A URL to a file at a path (Node): written via a temporary `.part` file; resolves with the path. */
  download(url: string, options: DownloadOptions & { to: string }): Promise<string>;
  /** A URL streamed into a web `WritableStream` or a Node `Writable`. */
  download(url: string, options: DownloadOptions & { to: WritableStream<Uint8Array> | NodeWritableLike }): Promise<void>;
  /** Every output of a task, as `Blob`s in order (each with the `type` the service sent). */
  download(task: TaskWithOutputs, options?: DownloadOptions & { to?: undefined }): Promise<Blob[]>;
  /** Every output of a task into a directory (Node): files `<task_id>-<index>.<ext>`; resolves with the paths. */
  download(task: TaskWithOutputs, options: DownloadOptions & { to: string }): Promise<string[]>;
  /** Every output of a task to the target a function chooses for each; resolves with the paths written (`undefined` for streams). */
  download(task: TaskWithOutputs, options: DownloadOptions & { to: TaskDownloadTarget }): Promise<(string | undefined)[]>;
  download(
    source: string | TaskWithOutputs,
    options: DownloadOptions & { to?: DownloadTarget | TaskDownloadTarget | undefined } = {},
  ): Promise<Blob | string | void | (Blob | string | undefined)[]> {
    const span = this.#telemetry?.call('files.download');
    return span ? span.run(() => this.#download(source, options, span)) : this.#download(source, options);
  }

  /**
   * @internal A task's outputs into `directory` as `<stem>.<ext>` (one) or `<stem>-<index>.<ext>`
   * (several), all or none: a batch's files (`<job id>[-<k>].<ext>`).
   */
  async save(task: TaskWithOutputs, directory: string, stem: string, options: DownloadOptions = {}): Promise<string[]> {
    const single = (task.data?.length ?? 0) === 1;
    const name = (index: number, extension: string) => (single ? `${stem}${extension}` : `${stem}-${index}${extension}`);
    return (await this.#download(task, { ...options, to: directory }, undefined, name)) as string[];
  }

  async #download(
    source: string | TaskWithOutputs,
    options: DownloadOptions & { to?: DownloadTarget | TaskDownloadTarget | undefined },
    span?: TelemetrySpan,
    name?: (index: number, extension: string) => string,
  ): Promise<Blob | string | void | (Blob | string | undefined)[]> {
    checkRequestOptions(options, 'files.download');
    const { to } = options;
    if (typeof source === 'string') {
      if (!URL.canParse(source)) throw new ValidationError([{ path: 'url', message: 'must be an absolute URL' }], 'files.download');
      if (typeof to === 'function') throw new ValidationError([{ path: 'to', message: 'a function target is for a task' }], 'files.download');
      return downloadOne(this.#http, source, 0, to, undefined, options, undefined, span);
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
    // A task's outputs are all or none: the first failure stops the others at once, and the
    // files written are renamed into place only when every one has arrived.
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const staged: Staged = [];
    let failure: { error: unknown } | undefined;
    const results = await Promise.all(
      urls.map((url, index) =>
        downloadOne(this.#http, url, index, typeof to === 'function' ? to({ url, index, taskId }) : to, typeof to === 'string' ? { directory: to, taskId, name } : undefined, { ...options, signal }, staged, span).catch(
          (error: unknown) => {
            // A download of a task's output is about that task: its errors say which.
            if (error instanceof OmniMediaError) error.taskId ??= taskId;
            failure ??= { error };
            stop.abort(error);
            return undefined;
          },
        ),
      ),
    );
    await settleStaged(staged, !failure);
    if (failure) throw failure.error;
    return results;
  }
}
