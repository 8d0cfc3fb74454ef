/**
 * The lines of a batch (`client.batch()`, `omnimedia batch`, `omnimedia/bullmq`): a job in, a
 * result out. Types, and the one rule of a job's own fields (its `id`, `op` and `params`); the
 * params are checked by the rules of the SDK method the `op` names.
 */
import type { ImageEditParams, ImageGenerateParams } from './images.ts';
import type { TaskStatus } from './task.ts';
import type { VideoEditParams, VideoGenerateParams } from './videos.ts';

/**
 * What a batch job does: the SDK method it calls.
 *
 * @example
 * ```ts
 * const op: BatchOperation = 'videos.generate';
 * ```
 */
export type BatchOperation = 'images.generate' | 'images.edit' | 'videos.generate' | 'videos.edit';

/** Every operation, in the order the documentation lists them. */
export const BATCH_OPERATIONS: readonly BatchOperation[] = ['images.generate', 'images.edit', 'videos.generate', 'videos.edit'];

/**
 * One job of a batch: one line of a JSONL file. `params` are exactly the SDK method's, but for
 * one addition: where a file goes, a string that is neither an http(s) URL nor an upload id is
 * a local path (in a file, relative to the file's directory), uploaded once per file.
 *
 * @example
 * ```ts
 * const job: BatchJob = { id: 'hero-1', op: 'images.generate', params: { model: 'omni-image', prompt: 'a lighthouse' } };
 * ```
 */
export type BatchJob =
  | {
      /** Names the job in its result line and its files; unique in the batch. Default `line-<n>`. */
      id?: string;
      /** The SDK method the job calls. */
      op: 'images.generate';
      /** That method's params; a local file's path where a file goes. */
      params: ImageGenerateParams;
    }
  | {
      /** Names the job in its result line and its files; unique in the batch. Default `line-<n>`. */
      id?: string;
      /** The SDK method the job calls. */
      op: 'images.edit';
      /** That method's params; a local file's path where a file goes. */
      params: ImageEditParams;
    }
  | {
      /** Names the job in its result line and its files; unique in the batch. Default `line-<n>`. */
      id?: string;
      /** The SDK method the job calls. */
      op: 'videos.generate';
      /** That method's params; a local file's path where a file goes. */
      params: VideoGenerateParams;
    }
  | {
      /** Names the job in its result line and its files; unique in the batch. Default `line-<n>`. */
      id?: string;
      /** The SDK method the job calls. */
      op: 'videos.edit';
      /** That method's params; a local file's path where a file goes. */
      params: VideoEditParams;
    };

/**
 * A result line's `status`: the task's final status (`completed`, `failed`...), or what became
 * of a job that has no final status: `unknown` (its submission was sent and no answer came: it
 * may or may not exist, and be billed), `refused` (the service answered the submission with an
 * error: no task), `invalid` (it broke a rule: nothing sent), `valid` (a dry run), or the
 * task's last status when the wait gave up (its deadline passed: the next run waits again).
 *
 * @example
 * ```ts
 * const status: BatchStatus = 'unknown';
 * ```
 */
export type BatchStatus = TaskStatus | 'unknown' | 'refused' | 'invalid' | 'valid';

/**
 * What went wrong with a job, in a result line.
 *
 * @example
 * ```ts
 * const error: BatchError = { type: 'TaskFailedError', message: 'the task failed', fail_reason: 'provider_error' };
 * ```
 */
export interface BatchError {
  /** The error's class, e.g. `TaskFailedError`, `BadRequestError`, `ValidationError`. */
  type: string;
  /** What happened, in words. */
  message: string;
  /** The HTTP status of an answer the service gave. */
  status?: number;
  /** A failed task's reason, as the service gave it. */
  fail_reason?: string;
  /** An invalid job's problems: each field and the rule it broke. */
  issues?: { path: string; message: string }[];
}

/**
 * One result line: what became of one job. `results.jsonl` holds one per job, in completion
 * order; `client.batch()` yields them.
 *
 * @example
 * ```ts
 * for await (const line of client.batch(jobs)) {
 *   if (line.status === 'completed') console.log(line.id, line.urls);
 * }
 * ```
 */
export interface BatchResult {
  /** The job's `id` (`line-<n>` for a line that gave none). */
  id: string;
  /** The task, once the service accepted the submission. */
  task_id?: string;
  /** See {@link BatchStatus}. */
  status: BatchStatus;
  /** The result URLs (`data[].url`) of a completed task. */
  urls: string[];
  /** The files downloaded (with `download`), in the order of `urls`. */
  files: string[];
  /** The task's cost, as the service reported it. */
  total_cost?: number;
  /** The task's attempts at providers. */
  attempt_count?: number;
  /** Why the job did not complete. */
  error?: BatchError;
  /** The job's line in the file (1-based), or its position in the iterable (1-based). */
  line?: number;
}

/** Longest job id: it names files (`<id>-<k>.png`). */
export const MAX_BATCH_ID_LENGTH = 128;
/**
 * Longest job id in UTF-8 bytes: a file name is at most 255 bytes, and a download's partial
 * file adds up to 24 (`-<k>.<ext>.<8 characters>.part`). 100 CJK characters are 300 bytes.
 */
export const MAX_BATCH_ID_BYTES = 200;

/**
 * What is wrong with a job's `id`, or `undefined`. It names the job's files, so it must be a
 * file name on every system: 1 to 128 characters and at most 200 bytes in UTF-8, none of
 * `/ \ : * ? " < > |` or a control character (C0, DEL or C1), not starting with a dot.
 */
export function batchIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'must be a string';
  if (id.length === 0 || id.length > MAX_BATCH_ID_LENGTH) return `must be 1 to ${MAX_BATCH_ID_LENGTH} characters`;
  const bytes = new TextEncoder().encode(id).length;
  if (bytes > MAX_BATCH_ID_BYTES) return `must be at most ${MAX_BATCH_ID_BYTES} bytes in UTF-8 (a file name's limit; it has ${bytes})`;
  // eslint-disable-next-line no-control-regex
  if (/[/\\:*?"<>|\u0000-\u001f\u007f-\u009f]/.test(id) || id.startsWith('.'))
    return 'names the job\'s files: no / \\ : * ? " < > |, no control character, and no leading dot';
  return undefined;
}
