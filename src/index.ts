/**
 * The client of the image and video generation service: `OmniMedia`, its errors, types and
 * constants. The zod schemas are in `omnimedia/schemas`.
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
  type APIErrorInit,
  type CallbackErrorReason,
  type ValidationIssue,
} from './errors.ts';
export { parseCallback, type CallbackBody } from './callbacks/parse-callback.ts';
export { CALLBACK_TOKEN_PARAM } from './callbacks/token.ts';
export type { CallbackTaskHandler } from './callbacks/delivery.ts';
export type { NodeCallbackRequest, NodeCallbackResponse } from './callbacks/answers.ts';
export { MemoryDedupeStore, MemoryUploadCacheStore } from './coordination/memory.ts';
export type {
  CachedUpload,
  CallbackDedupeStore,
  Coordination,
  DedupeClaim,
  DurationsStore,
  JournalEntry,
  PollBudget,
  PollGrant,
  RateLimitDecision,
  RateLimitStore,
  SubmissionJournal,
  TaskEventBus,
  TaskLeases,
  TaskListener,
  UploadCacheStore,
} from './coordination/ports.ts';
export type { DownloadTarget, NodeWritableLike, TaskDownloadTarget, TaskWithOutputs } from './downloads/targets.ts';
export type { LogLevel, Logger } from './internal/logger.ts';
export type {
  CallbackHandlerOptions,
  DownloadOptions,
  DownloadProgress,
  ParseCallbackOptions,
  RequestOptions,
  RetrieveOptions,
  UploadCacheOptions,
  UploadOptions,
  WaitOptions,
} from './options.ts';
export type { Telemetry, TelemetryRequest, TelemetrySpan } from './telemetry/ports.ts';
export type { Fetch } from './transport/http-client.ts';
export type { TransferProgress } from './transport/progress.ts';
export { fileFromPath } from './uploads/inputs.ts';
export { FileFromPath, type FileInput, type Uploadable } from './schemas/file-input.ts';
export type { UploadCache } from './uploads/cache.ts';
export { sniffMediaType, type SniffedType } from './uploads/sniff.ts';
export { isFailureStatus, isSuccessStatus, isTerminalStatus } from './waiting/status.ts';
export type { TaskPromise } from './waiting/task-promise.ts';
export type { Callbacks } from './resources/callbacks.ts';
export { imageSizeProblem } from './schemas/image-size.ts';
// Types and constants only: the zod schemas are in 'omnimedia/schemas', the only entry that
// loads zod (the client checks requests with the plain rules of src/schemas/rules.ts).
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
export type { TaskAttempt, TaskOutput, TaskResult, TaskStatus, TaskSubmission, VideoTaskSubmission } from './schemas/task.ts';
export { rawAnswer } from './schemas/tolerant.ts';
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
