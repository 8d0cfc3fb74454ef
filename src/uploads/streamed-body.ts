/**
 * Upload bodies streamed from their source (Node, Deno, Bun: where fetch takes a
 * `ReadableStream` body). Browser builds get streamed-body.browser.ts instead (see
 * tsup.config.ts): a page sends the platform's `FormData`.
 */
import { OmniMediaError } from '../errors.ts';
import { isBrowser } from '../internal/runtime.ts';
import type { AttemptBody, BodyOptions } from './body.ts';
import type { PreparedFile } from './inputs.ts';
import { limited } from './limited.ts';

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
 * The streamed body of one upload attempt (Node, Deno, Bun): the multipart framing of the
 * platform's `FormData` around the file read in small chunks on demand, counting bytes for
 * progress and checking the limit; exact Content-Length when the size is known.
 */
export async function streamedBody(file: PreparedFile, framing: () => Promise<Framing>, options: BodyOptions): Promise<AttemptBody> {
  const { source } = file;
  const content = source.replayable ? await source.read() : source.stream;
  const frame = await framing();
  const headers: Record<string, string> = { 'content-type': frame.contentType };
  if (source.size !== undefined)
    headers['content-length'] = String(frame.prefix.byteLength + source.size + frame.suffix.byteLength);
  options.onProgress?.({ loaded: 0, total: source.size });
  const { stream, release, sent } = framed(frame, limited(file, content, options));
  return { body: stream, headers, counted: true, release, sent };
}
