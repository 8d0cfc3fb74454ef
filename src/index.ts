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
} from './resources/callbacks.ts';
export type { RetrieveOptions } from './resources/tasks.ts';
export type { UploadOptions } from './resources/uploads.ts';
export { imageSizeProblem } from './schemas/image-size.ts';
export * from './schemas/images.ts';
export * from './schemas/task.ts';
export * from './schemas/uploads.ts';
export * from './schemas/videos.ts';
