/**
 * The client of the image and video generation service: `OmniMedia` and what a day's work with
 * it names (its options, the error classes, the result, parameter and option types, the status
 * predicates, `parseCallback`, `fileFromPath`). At most 45 names (test/index.test.ts); the rest
 * is in the subpath where it belongs: `omnimedia/resources` (the types of the client's parts
 * and their rarer arguments), `omnimedia/coordination` (the ports a custom store implements),
 * `omnimedia/schemas` (the spec's constants, zod schemas, type sniffing and size checks).
 *
 * @example
 * ```ts
 * import { OmniMedia, RateLimitError } from 'omnimedia';
 *
 * const client = new OmniMedia({ apiKey: process.env.OMNIMEDIA_API_KEY, baseURL: 'http://127.0.0.1:4010' });
 * const task = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse at dawn' }).wait();
 * console.log(task.data?.[0]?.url);
 * ```
 *
 * @module omnimedia
 */
export { OmniMedia, OmniMedia as default } from './client.ts';
export type { ClientOptions } from './options.ts';
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  CallbackError,
  InsufficientBalanceError,
  InternalServerError,
  NotFoundError,
  OmniMediaError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  TaskFailedError,
  ValidationError,
  WaitTimeoutError,
  type ValidationIssue,
} from './errors.ts';
export { UnusableResultError } from './errors/unusable-result.ts';
export { isFailureStatus, isSuccessStatus, isTerminalStatus } from './waiting/status.ts';
export { parseCallback } from './callbacks/parse-callback.ts';
export { fileFromPath } from './uploads/inputs.ts';
export type { Logger, LogLevel } from './internal/logger.ts';
export type {
  CallbackHandlerOptions,
  DownloadOptions,
  ParseCallbackOptions,
  RequestOptions,
  RetrieveOptions,
  UploadOptions,
  WaitOptions,
} from './options.ts';
export type { Uploadable } from './schemas/file-input.ts';
export type { ImageEditParams, ImageGenerateParams } from './schemas/images.ts';
export type { TaskResult, TaskStatus, TaskSubmission } from './schemas/task.ts';
export type { ImageUpload, VideoUpload } from './schemas/uploads.ts';
export type { VideoEditParams, VideoGenerateParams } from './schemas/videos.ts';
export type { TaskPromise } from './waiting/task-promise.ts';
