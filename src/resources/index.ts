/**
 * `omnimedia/resources`: the types of the client's parts (`client.images`, `.videos`,
 * `.uploads`, `.tasks`, `.callbacks`, `.files`) and of their less common arguments and
 * results, for code that passes a part around or names one of those types. Types only: this
 * entry adds no byte to a bundle.
 *
 * @example
 * ```ts
 * import type { TaskResult } from 'omnimedia';
 * import type { Files } from 'omnimedia/resources';
 *
 * async function saveAll(files: Files, task: TaskResult): Promise<string[]> {
 *   return files.download(task, { to: './results/' });
 * }
 * await saveAll(client.files, task);
 * ```
 *
 * @module omnimedia/resources
 */
export type { Callbacks } from './callbacks.ts';
export type { Files } from './files.ts';
export type { Images } from './images.ts';
export type { Tasks } from './tasks.ts';
export type { Uploads } from './uploads.ts';
export type { Videos } from './videos.ts';
export type { BatchOptions, BatchProgress } from '../options.ts';
export type { BatchError, BatchJob, BatchOperation, BatchResult, BatchStatus } from '../schemas/batch.ts';
export type { APIErrorInit, CallbackErrorReason } from '../errors.ts';
export type { CallbackBody } from '../callbacks/parse-callback.ts';
export type { CallbackTaskHandler } from '../callbacks/delivery.ts';
export type { NodeCallbackRequest, NodeCallbackResponse } from '../callbacks/answers.ts';
export type { DownloadTarget, NodeWritableLike, TaskDownloadTarget, TaskWithOutputs } from '../downloads/targets.ts';
export type { DownloadProgress, UploadCacheOptions } from '../options.ts';
export type { FileFromPath, FileInput } from '../schemas/file-input.ts';
export type { TaskAttempt, TaskOutput, VideoTaskSubmission } from '../schemas/task.ts';
export type { Fetch } from '../transport/http-client.ts';
export type { TransferProgress } from '../transport/progress.ts';
export type { UploadCache } from '../uploads/cache.ts';
