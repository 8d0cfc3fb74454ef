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
} from './errors.ts';
export { parseCallback, type CallbackBody, type ParseCallbackOptions } from './callbacks/parse-callback.ts';
export { MemoryDedupeStore, type CallbackDedupeStore } from './callbacks/dedupe.ts';
export { CALLBACK_TOKEN_PARAM } from './callbacks/token.ts';
export type { Fetch } from './transport/http-client.ts';
export type { LogLevel, Logger } from './internal/logger.ts';
export { fileFromPath, FileFromPath, type Uploadable } from './uploads/inputs.ts';
export type { FileInput } from './uploads/auto-upload.ts';
export type { TransferProgress } from './uploads/body.ts';
export {
  MemoryUploadCacheStore,
  type CachedUpload,
  type UploadCache,
  type UploadCacheOptions,
  type UploadCacheStore,
} from './uploads/cache.ts';
export type {
  DownloadOptions,
  DownloadProgress,
  DownloadTarget,
  NodeWritableLike,
  TaskDownloadTarget,
  TaskWithOutputs,
} from './resources/files.ts';
export { sniffMediaType, type SniffedType } from './uploads/sniff.ts';
export { isFailureStatus, isSuccessStatus, isTerminalStatus, type TaskStatus } from './waiting/status.ts';
export type { RequestOptions } from './resources/submission.ts';
export type { TaskPromise, WaitOptions } from './waiting/task-promise.ts';
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
// 'omnimedia' does not load zod (see src/schemas/load.ts).
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
