import type { TransferProgress } from '../transport/progress.ts';
import type { PreparedFile } from './inputs.ts';
import { limited } from './limited.ts';
import { canStreamRequestBodies, streamedBody, type Framing } from './streamed-body.ts';
import { ValidationError } from '../errors.ts';

export { canStreamRequestBodies, multipartFraming, type Framing } from './streamed-body.ts';

/** One attempt's request body and the headers that go with it. */
export interface AttemptBody {
  body: BodyInit;
  headers: Record<string, string>;
  /** `false` when the body is a FormData whose progress cannot be watched: report it at the end. */
  counted: boolean;
  /**
   * Let go of the source (close the file) whatever became of the request. fetch does not
   * always cancel a body it gave up on (a refused connection leaves a file read pending).
   */
  release: () => Promise<void>;
  /** Bytes of the body fetch has taken so far, when it is a stream we hand out (for messages). */
  sent?: () => number;
}

export interface BodyOptions {
  onProgress?: ((progress: TransferProgress) => void) | undefined;
  /** Called with the `ValidationError` when a stream of unknown size passes the limit. */
  onTooLarge: (error: ValidationError) => void;
}

/** Collect a one-shot stream into a `Blob`, stopping at the limit (runtimes that cannot stream a body). */
async function collect(file: PreparedFile, stream: ReadableStream<Uint8Array>, options: BodyOptions): Promise<Blob> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  const reader = limited(file, stream, options).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return new Blob(parts);
    parts.push(value as Uint8Array<ArrayBuffer>);
  }
}

/**
 * The body of one upload attempt.
 * - Where fetch can stream a request body (Node, Deno, Bun): the multipart framing of the
 *   platform's `FormData` around the file read in small chunks on demand (a path through a
 *   file handle, a Blob a slice at a time, a one-shot stream as it comes), counting bytes for
 *   progress and checking the limit; `duplex: 'half'`, exact Content-Length when the size is
 *   known. Why not the FormData itself: fetch reads a FormData's Blob in large chunks that
 *   pile up until a major GC (measured +45 to +54 MiB peak RSS for a 50 MiB upload through
 *   the SDK, at or over the 50 MiB target), where 32 KiB reads stay near +15 MiB, flat with
 *   the size. See bench/suites/upload-memory.ts.
 * - Where it cannot (browsers): the platform's `FormData` around the Blob; a one-shot stream
 *   is collected into a Blob first (stopping at the limit), and progress is reported once,
 *   at the end, by the caller.
 */
export async function attemptBody(
  file: PreparedFile,
  framing: () => Promise<Framing>,
  options: BodyOptions,
  streamed = canStreamRequestBodies(),
): Promise<AttemptBody> {
  const { source } = file;
  if (!streamed) {
    const blob = source.replayable ? await source.open() : await collect(file, source.stream, { ...options, onProgress: undefined });
    const form = new FormData();
    form.append('file', new File([blob], file.filename, { type: file.type.mediaType }));
    return { body: form, headers: {}, counted: false, release: async () => {} };
  }
  return streamedBody(file, framing, options);
}
