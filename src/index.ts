/**
 * The client of the image and video generation service: `OmniMedia`, its errors, types and
 * constants. The zod schemas are in `omnimedia/schemas`.
 *
 * @module omnimedia
 */
export { OmniMedia, OmniMedia as default, type ClientOptions } from './client.ts';
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
  type APIErrorInit,
  type CallbackErrorReason,
  type ValidationIssue,
} from './core/errors.ts';
export { parseCallback, type CallbackBody, type ParseCallbackOptions } from './core/callback-body.ts';
export { MemoryDedupeStore, type CallbackDedupeStore } from './core/callback-dedupe.ts';
export { CALLBACK_TOKEN_PARAM } from './core/callback-token.ts';
export type { Fetch } from './core/http.ts';
export type { LogLevel, Logger } from './core/logger.ts';
export { fileFromPath, FileFromPath, type Uploadable } from './core/files.ts';
export type { FileInput } from './core/auto-upload.ts';
export type { TransferProgress } from './core/upload-body.ts';
export {
  MemoryUploadCacheStore,
  type CachedUpload,
  type UploadCache,
  type UploadCacheOptions,
  type UploadCacheStore,
} from './core/upload-cache.ts';
export type {
  DownloadOptions,
  DownloadProgress,
  DownloadTarget,
  NodeWritableLike,
  TaskDownloadTarget,
  TaskWithOutputs,
} from './resources/files.ts';
export { sniffMediaType, type SniffedType } from './core/sniff.ts';
export { isFailureStatus, isSuccessStatus, isTerminalStatus, type TaskStatus } from './core/status.ts';
export type { RequestOptions } from './core/submit.ts';
export type { TaskPromise, WaitOptions } from './core/task-promise.ts';
export type {
  CallbackHandlerOptions,
  CallbackTaskHandler,
  NodeCallbackRequest,
  NodeCallbackResponse,
  Callbacks,
} from './resources/callbacks.ts';
export type { RetrieveOptions } from './resources/tasks.ts';
export type { UploadOptions } from './resources/uploads.ts';
export { imageSizeProblem } from './schemas/image-size.ts';
// Types and constants only: the zod schemas are in 'omnimedia/schemas', so that importing
// 'omnimedia' does not load zod (see src/core/validation.ts).
export * from './schemas/constants.ts';
export type {
  ImageEditBody,
  ImageEditParams,
  ImageGenerateParams,
  ImageOptions,
  ImageQuality,
  ImageReference,
  ImageSize,
} from './schemas/images.ts';
export type { TaskAttempt, TaskOutput, TaskResult, TaskSubmission, VideoTaskSubmission } from './schemas/task.ts';
export type { ImageUpload, VideoUpload } from './schemas/uploads.ts';
export type {
  AspectRatio,
  VideoContentPart,
  VideoEditBody,
  VideoEditModel,
  VideoEditParams,
  VideoGenerateBody,
  VideoGenerateMessagesParams,
  VideoGenerateModel,
  VideoGenerateParams,
  VideoGeneratePromptParams,
  VideoImageReference,
  VideoMessage,
  VideoReference,
  VideoResolution,
  VideoSeconds,
} from './schemas/videos.ts';
export type { Images } from './resources/images.ts';
export type { Tasks } from './resources/tasks.ts';
export type { Uploads } from './resources/uploads.ts';
export type { Videos } from './resources/videos.ts';
export type { Files } from './resources/files.ts';
