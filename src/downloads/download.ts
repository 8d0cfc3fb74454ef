import { APIConnectionError, OmniMediaError, ValidationError } from '../errors.ts';
import { contentLength } from '../internal/content-length.ts';
import { DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS, type DownloadOptions } from '../options.ts';
import type { TelemetrySpan } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';
import type { TransferProgress } from '../transport/progress.ts';
import { checkTarget, toNodeWritable, toPath, type Staged } from './node-targets.ts';
import type { DownloadTarget } from './targets.ts';
import { errorText } from '../internal/error-text.ts';

// Specifiers in variables so browser bundlers leave the Node-only branch alone.
const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/quicktime': '.mov',
};

function extensionOf(url: string, contentType: string | null): string {
  const fromUrl = /\.[a-z0-9]{2,5}$/i.exec(new URL(url).pathname)?.[0];
  return fromUrl ?? EXTENSIONS[(contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''] ?? '';
}

/** The response body, counted as it is read. */
function counted(body: ReadableStream<Uint8Array>, total: number | undefined, report: ((p: TransferProgress) => void) | undefined) {
  if (!report) return body;
  let loaded = 0;
  report({ loaded, total });
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        controller.enqueue(chunk);
        report({ loaded, total });
      },
    }),
  );
}

/**
 * Download one file. Streamed, never buffered, when written to a path or a stream; a file that
 * fails half-way is removed. Sends no API key. `into`: a directory and the task's id, when the
 * file goes into a directory under a name of its own (`<task_id>-<index>.<ext>`, or `name`'s); `staged`: files are left beside their
 * targets there, for the caller to rename together; `span`: the call it is made for, when
 * telemetry is on.
 */
export async function downloadOne(
  http: HttpClient,
  url: string,
  index: number,
  to: DownloadTarget | undefined,
  into: { directory: string; taskId: string | undefined; name?: ((index: number, extension: string) => string) | undefined } | undefined,
  options: DownloadOptions,
  staged?: Staged,
  span?: TelemetrySpan,
): Promise<Blob | string | undefined> {
  const what = `files.download(${url})`;
  await checkTarget(to, into !== undefined);
  const { response, body: content } = await http.open(url, {
    what,
    signal: options.signal,
    timeout: options.timeout,
    idleTimeout: options.idleTimeout ?? DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS,
    maxRetries: options.maxRetries,
    span,
  });
  const total = contentLength(response.headers.get('content-length'), response.headers.get('content-encoding'));
  const body = counted(
    content,
    total,
    options.onProgress && ((p) => options.onProgress?.({ ...p, url, index })),
  );
  const failed = (error: unknown) => {
    if (options.signal?.aborted) return options.signal.reason;
    if (error instanceof ValidationError || error instanceof APIConnectionError) return error;
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
    const extension = extensionOf(url, response.headers.get('content-type'));
    const name = into?.name ? into.name(index, extension) : `${(into?.taskId ?? 'output').replace(/[^\w.-]/g, '_')}-${index}${extension}`;
    return await toPath(body, to, into && name, staged);
  } catch (error) {
    await body.cancel().catch(() => {});
    throw failed(error);
  }
}
