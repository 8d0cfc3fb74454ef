import { APIConnectionError, OmniMediaError } from '../errors.ts';
import { contentLength } from '../internal/content-length.ts';
import { errorText } from '../internal/error-text.ts';
import { urlForRecord } from '../internal/redact.ts';
import { DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS, type DownloadOptions } from '../options.ts';
import { SNIFF_BYTES, sniffMediaType } from '../schemas/sniff.ts';
import type { TelemetrySpan } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';
import type { TransferProgress } from '../transport/progress.ts';
import { checkTarget, toNodeWritable, toPath, type Staged } from './node-targets.ts';
import type { DownloadTarget } from './targets.ts';

/** The extension a task's output gets, by media type. */
const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'image/avif': '.avif',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/quicktime': '.mov',
};

/**
 * A task output's extension: from the type the server sent; when it sent none or a generic
 * one (`application/octet-stream`), from what the first bytes are; else none. Never from the
 * URL: its path is the server's to choose (`..%2F..%2Fescaped.sh`).
 */
function extensionOf(contentType: string | null, head: Uint8Array): string {
  const served = EXTENSIONS[(contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''];
  return served ?? EXTENSIONS[sniffMediaType(head)?.mediaType ?? ''] ?? '';
}

/** Characters a task id keeps in a file name; every other one is percent-encoded (`%` too). */
const KEPT = /[A-Za-z0-9_.-]/;
/** Encoded ids longer than this are cut and keep a hash of the whole id (file names end at 255 bytes). */
const MAX_ENCODED_ID = 160;

/**
 * The name of output `index` of a task in a directory, without its extension: `<task id>-<index>`,
 * the id percent-encoded so that no two ids share a name (`job/1` is `job%2F1`, `job_1` stays)
 * and none starts with a dot (a hidden file); a long id is cut and keeps a hash of itself.
 */
export async function outputBase(taskId: string | undefined, index: number): Promise<string> {
  const id = taskId ?? 'output';
  let encoded = '';
  for (const char of id)
    encoded += KEPT.test(char) && !(encoded === '' && char === '.') ? char : [...new TextEncoder().encode(char)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  if (encoded.length > MAX_ENCODED_ID) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(id)));
    // `~` is never kept from an id (it would be %7E): a cut name cannot equal a whole one.
    encoded = `${encoded.slice(0, MAX_ENCODED_ID - 33)}~${[...digest.subarray(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  }
  return `${encoded}-${index}`;
}

/** The response body, counted as it is read, its first bytes kept (for the extension). */
function observed(body: ReadableStream<Uint8Array>, total: number | undefined, report: ((p: TransferProgress) => void) | undefined) {
  let loaded = 0;
  let head = new Uint8Array(0);
  report?.({ loaded, total });
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (head.length < SNIFF_BYTES) head = new Uint8Array([...head, ...chunk.subarray(0, SNIFF_BYTES - head.length)]);
        loaded += chunk.byteLength;
        controller.enqueue(chunk);
        report?.({ loaded, total });
      },
    }),
  );
  return { stream, head: () => head };
}

/** Where one download goes, and how. */
export interface DownloadPlan {
  index: number;
  to: DownloadTarget | undefined;
  /** A task's directory and this output's name in it (`outputBase`), when the file is named by the SDK. */
  into?: { directory: string; base: string } | undefined;
  /** A task's outputs: placed together by the caller (`settleStaged`). */
  staged?: Staged | undefined;
  /** The call it is made for, when telemetry is on. */
  span?: TelemetrySpan | undefined;
}

/**
 * Download one file. Streamed, never buffered, when written to a path or a stream; a file that
 * fails half-way is removed, and an existing file is replaced only with `overwrite`. Sends no
 * API key. Its errors name the URL by scheme, host and path only (`urlForRecord`).
 */
export async function downloadOne(http: HttpClient, url: string, plan: DownloadPlan, options: DownloadOptions): Promise<Blob | string | undefined> {
  const { index, to, into } = plan;
  const what = `files.download(${urlForRecord(url)})`;
  const overwrite = options.overwrite === true;
  await checkTarget(into ? into.directory : to, into?.base, overwrite);
  const { response, body: content } = await http.open(url, {
    what,
    signal: options.signal,
    timeout: options.timeout,
    idleTimeout: options.idleTimeout ?? DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS,
    maxRetries: options.maxRetries,
    span: plan.span,
  });
  const total = contentLength(response.headers.get('content-length'), response.headers.get('content-encoding'));
  const { stream: body, head } = observed(content, total, options.onProgress && ((p) => options.onProgress?.({ ...p, url, index })));
  const failed = (error: unknown) => {
    if (options.signal?.aborted) return options.signal.reason;
    if (error instanceof OmniMediaError) return error;
    // The file system's error (EACCES, ENOSPC): ours to say, not the network's.
    if (typeof (error as { syscall?: unknown } | null)?.syscall === 'string')
      return new OmniMediaError(`${what}: the file could not be written (${errorText(error)})`, { cause: error });
    return new APIConnectionError(`${what}: the download broke off (${errorText(error)})`, { cause: error });
  };
  try {
    if (to === undefined) {
      // The Blob carries the type the server sent (a bare Response would leave it empty).
      const type = response.headers.get('content-type');
      return await new Response(body, type ? { headers: { 'content-type': type } } : {}).blob();
    }
    if (to instanceof WritableStream) {
      await body.pipeTo(to, options.signal ? { signal: options.signal } : {});
      return undefined;
    }
    if (typeof to !== 'string') {
      await toNodeWritable(body, to);
      return undefined;
    }
    const target = into ? { ...into, extension: () => extensionOf(response.headers.get('content-type'), head()) } : { file: to };
    return await toPath(body, target, { overwrite, staged: plan.staged });
  } catch (error) {
    await body.cancel().catch(() => {});
    throw failed(error);
  }
}
