import { checkRequestOptions } from '../option-checks.ts';
import type { DownloadOptions } from '../options.ts';
import { OmniMediaError, ValidationError } from '../errors.ts';
import { UnusableResultError } from '../errors/unusable-result.ts';
import { downloadOne, outputBase } from '../downloads/download.ts';
import { settleStaged, type Staged } from '../downloads/node-targets.ts';
import type { DownloadTarget, NodeWritableLike, TaskDownloadTarget, TaskWithOutputs } from '../downloads/targets.ts';
import { errorText, shownQuoted } from '../internal/error-text.ts';
import type { Telemetry, TelemetrySpan } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';
import type { TaskResult } from '../schemas/task.ts';
import { readCallerInput } from '../validation/caller-input.ts';

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
    options?: DownloadOptions & { to?: DownloadTarget | TaskDownloadTarget | undefined },
  ): Promise<Blob | string | void | (Blob | string | undefined)[]> {
    const span = this.#telemetry?.call('files.download');
    return span ? span.run(() => this.#download(source, options, span)) : this.#download(source, options);
  }

  async #download(
    source: string | TaskWithOutputs,
    options: (DownloadOptions & { to?: DownloadTarget | TaskDownloadTarget | undefined }) | undefined,
    span?: TelemetrySpan,
  ): Promise<Blob | string | void | (Blob | string | undefined)[]> {
    // The door: source and options read once, as plain data (targets and callbacks kept as given).
    const given = readCallerInput(source, 'files.download source');
    if (typeof given === 'string') {
      const read = checkRequestOptions(options, 'files.download');
      const problem = urlProblem(given);
      if (problem) throw new ValidationError([{ path: 'url', message: problem }], 'files.download');
      return downloadOne(this.#http, given, { index: 0, to: checkTarget(read.to, 'to'), span }, read);
    }
    if (typeof given !== 'object' || given === null || Array.isArray(given))
      throw new ValidationError([{ path: '', message: 'must be a result URL or a task (with its data[].url)' }], 'files.download');
    const task = given as TaskWithOutputs;
    const taskId = typeof task.task_id === 'string' && task.task_id ? task.task_id : undefined;
    try {
      return await downloadTask(this.#http, task, taskId, checkRequestOptions(options, 'files.download'), span);
    } catch (error) {
      // Every error of a task's download (its options' included) is about that task: it says which.
      if (error instanceof OmniMediaError) error.taskId ??= taskId;
      throw error;
    }
  }
}

/**
 * A task's outputs (`data[].url`): each to its target (`to` a directory or a function choosing
 * one; none: `Blob`s), all or none.
 */
async function downloadTask(
  http: HttpClient,
  task: TaskWithOutputs,
  taskId: string | undefined,
  options: DownloadOptions & { to?: DownloadTarget | TaskDownloadTarget | undefined },
  span: TelemetrySpan | undefined,
  base?: (index: number) => string,
): Promise<(Blob | string | undefined)[]> {
  const urls = resultURLs(task, taskId);
  const { to } = options;
  if (to !== undefined && (typeof to !== 'string' || to === '') && typeof to !== 'function')
    throw new ValidationError(
      [{ path: 'to', message: 'for a task, give a directory or a function choosing each output’s target' }],
      'files.download',
    );
  const targets = await Promise.all(
    urls.map(async (url, index) =>
      typeof to === 'string' ? { to, into: { directory: to, base: base ? base(index) : await outputBase(taskId, index) } } : { to: typeof to === 'function' ? chosenTarget(to, { url, index, taskId }) : undefined },
    ),
  );
  // A task's outputs are all or none: the first failure stops the others at once, and the
  // files written are put in place only when every one has arrived.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const staged: Staged = [];
  let failure: { error: unknown } | undefined;
  const results = await Promise.all(
    urls.map((url, index) =>
      downloadOne(http, url, { index, ...targets[index]!, staged, span }, { ...options, signal }).catch((error: unknown) => {
        failure ??= { error };
        stop.abort(error);
        return undefined;
      }),
    ),
  );
  await settleStaged(staged, !failure, options.overwrite === true);
  if (failure) throw failure.error;
  return results;
}

/**
 * A task's outputs into `directory` as `<stem>.<ext>` (one) or `<stem>-<index>.<ext>`
 * (several), all or none, replacing what an earlier run left there: a batch's files
 * (`<job id>[-<k>].<ext>`, the id a safe file name by `batchIdProblem`). A function, not a
 * method of `Files`: only the batch's ports use it, so a page's build (which has no batch)
 * leaves it out.
 */
export async function saveTaskFiles(http: HttpClient, task: TaskWithOutputs, directory: string, stem: string, options: DownloadOptions = {}): Promise<string[]> {
  const taskId = typeof task.task_id === 'string' && task.task_id ? task.task_id : undefined;
  const single = (task.data?.length ?? 0) === 1;
  const base = (index: number) => (single ? stem : `${stem}-${index}`);
  try {
    const read = checkRequestOptions({ ...options, to: directory, overwrite: true }, 'files.download');
    return (await downloadTask(http, task, taskId, read, undefined, base)) as string[];
  } catch (error) {
    if (error instanceof OmniMediaError) error.taskId ??= taskId;
    throw error;
  }
}

/** A file path, a web `WritableStream` or a Node `Writable` (by its methods); else a `ValidationError` naming `path`. */
function checkTarget(to: unknown, path: string): DownloadTarget | undefined {
  let problem: string;
  try {
    if (to === undefined || (typeof to === 'string' && to !== '') || to instanceof WritableStream) return to;
    const node = to as Partial<NodeWritableLike> | null;
    if (typeof node === 'object' && node !== null && ['write', 'end', 'on'].every((method) => typeof node[method as keyof NodeWritableLike] === 'function')) return to as NodeWritableLike;
    problem = typeof to === 'function' ? 'a function target is for a task' : 'must be a file path, a WritableStream or a Node Writable';
  } catch (error) {
    problem = `cannot be read: ${errorText(error)}`; // a getter or a Proxy trap that throws
  }
  throw new ValidationError([{ path, message: problem }], 'files.download');
}

/** The target the caller's function chose for one output, checked; a function that throws is the caller's `ValidationError`. */
function chosenTarget(choose: (output: { url: string; index: number; taskId: string | undefined }) => DownloadTarget, output: { url: string; index: number; taskId: string | undefined }): DownloadTarget | undefined {
  let chosen: unknown;
  try {
    chosen = choose(output);
  } catch (error) {
    throw new ValidationError([{ path: 'to', message: `threw for output ${output.index}: ${errorText(error)}` }], 'files.download');
  }
  return checkTarget(chosen, `to(${output.index})`);
}

/** Why a URL cannot be downloaded, or `undefined`: an absolute http(s), `data:` or `blob:` URL, without credentials. */
function urlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return 'must be an absolute URL';
  const parsed = new URL(url);
  if (!['http:', 'https:', 'data:', 'blob:'].includes(parsed.protocol)) return `must be an http(s), data: or blob: URL (got ${parsed.protocol})`;
  // fetch refuses them on some runtimes, and a log line or an error would carry them.
  if (parsed.username || parsed.password) return 'must not hold credentials (user:password@)';
  return undefined;
}

/**
 * A task's result URLs, each one usable; else, for a task (it has an id), an
 * `UnusableResultError` with its id (it exists, and may be billed), and for data that is no
 * task a `ValidationError` naming the field.
 */
export function resultURLs(task: TaskWithOutputs, taskId: string | undefined): string[] {
  const data: unknown = task.data;
  const entries = Array.isArray(data) ? data : [];
  const problems = entries.flatMap((entry: unknown, i) => {
    const url = (entry as { url?: unknown } | null)?.url;
    const problem = typeof url === 'string' ? urlProblem(url) : 'is missing';
    return problem ? [{ path: `data[${i}].url`, message: problem }] : [];
  });
  if (entries.length === 0) problems.push({ path: 'data', message: `holds no result URL (status ${shownQuoted(task.status)})` });
  if (problems.length === 0) return entries.map((entry: { url: string }) => entry.url);
  if (taskId === undefined) throw new ValidationError(problems, 'files.download task');
  const summary = problems.map((p) => `${p.path} ${p.message}`).join('; ');
  throw new UnusableResultError({ ...(task as TaskResult), task_id: taskId }, summary);
}
