/**
 * downloads/: result files out: streamed to a path, a web `WritableStream` or a Node
 * `Writable`, or collected into a `Blob`. Imports transport/, options, errors.ts and internal/.
 */

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
  /** Writes one chunk; a `false` answer means wait for `'drain'`. */
  write(chunk: Uint8Array): unknown;
  /** Ends the stream once every chunk is written. */
  end(): unknown;
  /** Listens for `'drain'`, `'error'`, `'finish'` and `'close'`. */
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
  /** The task's id: the default file names start with it. */
  task_id?: string | undefined;
  /** The task's status, named in the `ValidationError` when the task has no results to download. */
  status?: string | undefined;
  /** The results, each downloaded from its `url`. */
  data?: readonly { url: string }[] | undefined;
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
