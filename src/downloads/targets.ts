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
