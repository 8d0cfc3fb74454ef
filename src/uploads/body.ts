import { OmniMediaError, ValidationError } from '../errors.ts';
import { tooLargeMessage, type PreparedFile } from './inputs.ts';
import { isBrowser } from '../internal/runtime.ts';
import type { TransferProgress } from '../transport/progress.ts';

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

/**
 * Whether `fetch` here can send a `ReadableStream` body (`duplex: 'half'`). Server runtimes
 * can; browsers only over HTTP/2 in Chromium, so a page never relies on it.
 */
let streamsChecked: boolean | undefined;
export function canStreamRequestBodies(): boolean {
  return (streamsChecked ??= checkRequestStreams());
}

function checkRequestStreams(): boolean {
  if (isBrowser() || typeof ReadableStream !== 'function' || typeof Request !== 'function') return false;
  let duplexAccessed = false;
  try {
    const hasContentType = new Request('http://127.0.0.1/', {
      method: 'POST',
      body: new ReadableStream(),
      get duplex() {
        duplexAccessed = true;
        return 'half';
      },
    } as RequestInit).headers.has('content-type');
    return duplexAccessed && !hasContentType;
  } catch {
    return false;
  }
}

/**
 * The multipart framing the platform's `FormData` writes around one file part: everything
 * before the file's bytes and everything after. The platform does the encoding (boundary,
 * quoting of the filename); we only splice a stream between the two halves.
 */
export interface Framing {
  prefix: Uint8Array;
  suffix: Uint8Array;
  contentType: string;
}

export async function multipartFraming(filename: string, mediaType: string): Promise<Framing> {
  const form = new FormData();
  form.append('file', new File([], filename, { type: mediaType }));
  const serialized = new Response(form);
  const contentType = serialized.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await serialized.arrayBuffer());
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  // The closing delimiter, then (in most runtimes, not all: Node 22.0 omits it) a CRLF.
  const close = new TextEncoder().encode(`\r\n--${boundary?.[1] ?? boundary?.[2] ?? ''}--`);
  let start = bytes.byteLength - close.byteLength;
  while (start > 0 && !close.every((byte, i) => bytes[start + i] === byte)) start--;
  if (!boundary || start <= 0 || bytes.byteLength - start - close.byteLength > 2)
    throw new OmniMediaError('This runtime serializes FormData in an unexpected way: cannot stream the upload. Give a path or a Blob instead.');
  const suffix = bytes.slice(start);
  return { prefix: bytes.slice(0, start), suffix, contentType };
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

/** The file's bytes with the running count checked against the limit; errors at the limit. */
function limited(file: PreparedFile, content: ReadableStream<Uint8Array>, options: BodyOptions): ReadableStream<Uint8Array> {
  const reader = content.getReader();
  const { maxBytes } = file.rule;
  const total = file.source.size;
  let loaded = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        loaded += value.byteLength;
        if (loaded > maxBytes) {
          const error = new ValidationError(
            [{ path: file.field, message: tooLargeMessage(file.rule, `the stream passed it (${loaded.toLocaleString('en-US')} bytes read)`) }],
            `${file.rule.kind} upload`,
          );
          options.onTooLarge(error);
          await reader.cancel(error).catch(() => {});
          return controller.error(error);
        }
        controller.enqueue(value);
        options.onProgress?.({ loaded, total });
      },
      cancel: (reason) => reader.cancel(reason),
    },
    // Pull only when fetch asks for more: the socket's backpressure reaches the file.
    { highWaterMark: 0 },
  );
}

/** `prefix`, then the stream, then `suffix`, pulled on demand; `release` cancels the content. */
function framed(
  framing: Framing,
  content: ReadableStream<Uint8Array>,
): { stream: ReadableStream<Uint8Array>; release: () => Promise<void>; sent: () => number } {
  const reader = content.getReader();
  let stage: 'prefix' | 'content' | 'done' = 'prefix';
  let sent = 0;
  const enqueue = (controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array) => {
    sent += chunk.byteLength;
    controller.enqueue(chunk);
  };
  const release = async () => {
    if (stage === 'done') return;
    stage = 'done';
    await reader.cancel().catch(() => {});
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (stage === 'prefix') {
          stage = 'content';
          return enqueue(controller, framing.prefix.slice());
        }
        if (stage === 'done') return controller.close();
        const { done, value } = await reader.read();
        if (!done) return enqueue(controller, value);
        stage = 'done';
        enqueue(controller, framing.suffix.slice());
        controller.close();
      },
      cancel: (reason) => {
        stage = 'done';
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, release, sent: () => sent };
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
  const content = source.replayable ? await source.read() : source.stream;
  const frame = await framing();
  const headers: Record<string, string> = { 'content-type': frame.contentType };
  if (source.size !== undefined)
    headers['content-length'] = String(frame.prefix.byteLength + source.size + frame.suffix.byteLength);
  options.onProgress?.({ loaded: 0, total: source.size });
  const { stream, release, sent } = framed(frame, limited(file, content, options));
  return { body: stream, headers, counted: true, release, sent };
}
