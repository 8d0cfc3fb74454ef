/**
 * uploads/: files in: the input kinds, type sniffing, the streamed multipart body, the upload
 * cache and the auto-upload of file objects where a reference goes. Imports transport/,
 * schemas/, validation/, coordination/ (ports), options, errors.ts and internal/.
 */
import type { ValidationError } from '../errors.ts';
import type { LevelledLogger } from '../internal/logger.ts';
import type { UploadOptions } from '../options.ts';
import type { TransferProgress } from '../transport/progress.ts';
import type { ImageUpload, VideoUpload } from '../schemas/uploads.ts';
import type { Telemetry, TelemetrySpan } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';
import { requestBody } from '../transport/request-body.ts';
import { IMAGE_UPLOAD_ANSWER, VIDEO_UPLOAD_ANSWER } from '../schemas/answers.ts';
import { parseResponse } from '../validation/answers.ts';
import { attemptBody, multipartFraming, type Framing } from './body.ts';
import { uploadCacheKey, type UploadCache } from './cache.ts';
import type { PreparedFile } from './inputs.ts';

const ENDPOINT = { image: 'v1/uploads/images', video: 'v1/uploads/videos' } as const;
/** What an upload's span ends with when the call reused a record (see `TelemetrySpan.end`). */
const REUSED = { reused: true };

/** Sends a file `prepareFile` already checked; resolves with its upload record. */
export type Uploader = (file: PreparedFile, options?: UploadOptions) => Promise<ImageUpload | VideoUpload>;

/** What an uploader sends through. */
export interface UploaderPorts {
  http: HttpClient;
  /** The client's upload cache, when on. */
  cache: UploadCache | undefined;
  /** Default ms per upload attempt. */
  uploadTimeout: number;
  logger: LevelledLogger;
  telemetry?: Telemetry | undefined;
}

/**
 * The one way a file is uploaded, by `uploads.*` and by auto-upload alike: through the upload
 * cache when one is on (replayable files only: a one-shot stream cannot be hashed and then
 * sent), else straight to the endpoint.
 */
export function createUploader(ports: UploaderPorts): Uploader {
  const upload = async (file: PreparedFile, options: UploadOptions, span?: TelemetrySpan) => {
    const { cache } = ports;
    if (!cache || !file.source.replayable) return post(ports, file, options, span);
    const key = await uploadCacheKey(file as PreparedFile & { source: { replayable: true } });
    // The shared upload runs under the cache's signal; this caller's ends only its own wait,
    // and its progress stops with it.
    const onProgress = (p: TransferProgress) => void (options.signal?.aborted || options.onProgress?.(p));
    const { record, cached } = await cache.getOrUpload(key, (signal) => post(ports, file, { ...options, signal, onProgress }, span), options);
    if (cached) {
      ports.logger.debug(`uploads.${file.rule.kind}: reused the upload of the same bytes (${key})`);
      options.onProgress?.({ loaded: file.source.size, total: file.source.size });
      // This call sent no request: its time went to another caller's upload, or to none.
      span?.end(undefined, REUSED);
    }
    return record;
  };
  return (file, options = {}) => {
    const span = ports.telemetry?.call(`uploads.${file.rule.kind}`);
    return span ? span.run(() => upload(file, options, span)) : upload(file, options);
  };
}

async function post(ports: UploaderPorts, file: PreparedFile, options: UploadOptions, span?: TelemetrySpan): Promise<ImageUpload | VideoUpload> {
  const { rule } = file;
  const what = `uploads.${rule.kind}`;
  let tooLarge: ValidationError | undefined;
  let framing: Promise<Framing> | undefined;
  let counted = true;
  try {
    const record = await ports.http.request({
      method: 'POST',
      path: ENDPOINT[rule.kind],
      auth: true,
      // Uploads are not billed (spec 4.2): a duplicate costs nothing, so any transient
      // failure is retried, a connection reset after sending included.
      retry: 'idempotent',
      body: requestBody(async () => {
        const attempt = await attemptBody(file, () => (framing ??= multipartFraming(file.filename, file.type.mediaType)), {
          onProgress: options.onProgress,
          onTooLarge: (error) => (tooLarge = error),
        });
        counted = attempt.counted;
        return attempt;
      }),
      parse: (body, meta): ImageUpload | VideoUpload =>
        parseResponse(rule.kind === 'image' ? IMAGE_UPLOAD_ANSWER : VIDEO_UPLOAD_ANSWER, body, what, meta),
      what,
      span,
      signal: options.signal,
      timeout: options.timeout ?? ports.uploadTimeout,
      // A one-shot stream is spent by the first attempt: it cannot be sent again.
      maxRetries: file.source.replayable ? options.maxRetries : 0,
    });
    if (!counted) {
      const size = file.source.size ?? Number(record.bytes ?? 0);
      options.onProgress?.({ loaded: size, total: size });
    }
    return record;
  } catch (error) {
    // The stream passed the limit: fetch saw its body fail; the caller should see why.
    throw tooLarge ?? error;
  }
}
