import { ValidationError } from '../errors.ts';
import { FileFromPath, fileName, type Uploadable } from '../schemas/file-input.ts';
import { concatBytes } from '../internal/bytes.ts';
import { contentLength } from '../internal/content-length.ts';
import { openPath, READ_CHUNK_BYTES, readPath } from './node-files.ts';
import { SNIFF_BYTES, sniffMediaType, type SniffedType } from '../schemas/sniff.ts';
import { errorText } from '../internal/error-text.ts';

/**
 * A file on disk to upload, or to pass as `image`/`mask`/`images`/`input_video` where a plain
 * string means a URL or upload id.
 *
 * @example
 * ```ts
 * await client.images.edit({ model: 'omni-image', prompt: 'make it night', image: fileFromPath('./photo.png') });
 * ```
 */
export function fileFromPath(path: string, filename?: string): FileFromPath {
  if (typeof path !== 'string' || path === '') throw new ValidationError([{ path: 'path', message: 'must be a non-empty file path' }]);
  return new FileFromPath(path, filename);
}

/** What an upload endpoint accepts. Sizes in MiB: see "Spec gaps and our decisions". */
export interface UploadRule {
  /** e.g. `image`, for messages. */
  kind: 'image' | 'video';
  maxBytes: number;
  /** Labels from {@link sniffMediaType} the endpoint takes. */
  accept: readonly string[];
}

export const MiB = 1024 * 1024;
export const IMAGE_UPLOAD_RULE: UploadRule = { kind: 'image', maxBytes: 25 * MiB, accept: ['PNG', 'JPEG', 'WebP'] };
export const VIDEO_UPLOAD_RULE: UploadRule = { kind: 'video', maxBytes: 50 * MiB, accept: ['MP4', 'MOV', 'WebM'] };

/**
 * Where the bytes come from. A replayable source is opened afresh for every attempt (a retry
 * re-reads the file); a one-shot stream can be read once.
 */
export type FileSource =
  | {
      replayable: true;
      size: number;
      /** The whole file as a (lazy, for a path) Blob, for a FormData body or hashing. */
      open: () => Promise<Blob>;
      /** The bytes as a fresh stream of small chunks, read only as fast as they are sent. */
      read: () => Promise<ReadableStream<Uint8Array>>;
    }
  | { replayable: false; size: number | undefined; stream: ReadableStream<Uint8Array> };


/** A file checked against its endpoint's rule and ready to send. */
export interface PreparedFile {
  source: FileSource;
  filename: string;
  type: SniffedType;
  rule: UploadRule;
  /** The field it came from, for messages (`file`, `image[1]`, `input_video`). */
  field: string;
}

/** A Blob read a slice at a time, on demand (any runtime). */
function readBlob(blob: Blob): ReadableStream<Uint8Array> {
  let position = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (position >= blob.size) return controller.close();
        const chunk = new Uint8Array(await blob.slice(position, position + READ_CHUNK_BYTES).arrayBuffer());
        position += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
}


const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

/** `true` for anything {@link Uploadable} but a string: a value that means "upload this first". */
export function isFileInput(value: unknown): value is Exclude<Uploadable, string> {
  return (
    value instanceof FileFromPath ||
    value instanceof Blob ||
    value instanceof Uint8Array ||
    value instanceof ArrayBuffer ||
    value instanceof ReadableStream ||
    value instanceof Response ||
    isAsyncIterable(value)
  );
}

/** A web stream over any async iterable of bytes (a Node `Readable`), pulled on demand. */
function streamFromIterable(iterable: AsyncIterable<unknown>): ReadableStream<Uint8Array> {
  const iterator = iterable[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await iterator.next();
        if (done) return controller.close();
        if (!(value instanceof Uint8Array))
          throw new ValidationError([{ path: 'file', message: 'the stream must yield bytes (Uint8Array or Buffer), not strings' }]);
        controller.enqueue(value);
      },
      async cancel(reason) {
        await iterator.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

interface Opened {
  source: FileSource;
  head: Uint8Array;
  name?: string | undefined;
}

/** The first bytes of a Blob; one that cannot be read (a file changed on disk) is the caller's `ValidationError`. */
async function headOfBlob(blob: Blob, field: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await blob.slice(0, SNIFF_BYTES).arrayBuffer());
  } catch (error) {
    throw new ValidationError([{ path: field, message: `cannot be read: ${errorText(error)}` }]);
  }
}

/**
 * Read the first bytes of a one-shot stream and give back a stream that replays them, then
 * the rest, so that sniffing costs nothing and sends everything.
 */
async function peekStream(stream: ReadableStream<Uint8Array>): Promise<{ head: Uint8Array; stream: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const buffered: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  while (length < SNIFF_BYTES) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    if (!(value instanceof Uint8Array)) {
      await reader.cancel().catch(() => {});
      throw new ValidationError([{ path: 'file', message: 'the stream must yield bytes (Uint8Array or Buffer), not strings' }]);
    }
    buffered.push(value);
    length += value.byteLength;
  }
  const head = concatBytes(buffered);
  const replay = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = buffered.shift();
        if (next) return controller.enqueue(next);
        if (ended) return controller.close();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return { head: head.subarray(0, SNIFF_BYTES), stream: replay };
}

async function open(input: Uploadable, field: string): Promise<Opened> {
  if (typeof input === 'string' || input instanceof FileFromPath) {
    const path = typeof input === 'string' ? input : input.path;
    const blob = await openPath(path, field);
    return {
      source: { replayable: true, size: blob.size, open: () => openPath(path, field), read: () => readPath(path, field) },
      head: await headOfBlob(blob, field),
      name: typeof input === 'string' ? fileName(path) : input.name,
    };
  }
  if (input instanceof Blob) {
    const name = 'name' in input && typeof input.name === 'string' && input.name ? input.name : undefined;
    return {
      source: { replayable: true, size: input.size, open: async () => input, read: async () => readBlob(input) },
      head: await headOfBlob(input, field),
      name,
    };
  }
  if (input instanceof Uint8Array || input instanceof ArrayBuffer) {
    const blob = new Blob([input as Uint8Array<ArrayBuffer>]);
    return { source: { replayable: true, size: blob.size, open: async () => blob, read: async () => readBlob(blob) }, head: await headOfBlob(blob, field) };
  }
  if (input instanceof Response) {
    if (!input.ok)
      throw new ValidationError([{ path: field, message: `the Response has status ${input.status}, not a file to upload` }]);
    if (input.bodyUsed) throw new ValidationError([{ path: field, message: 'the Response body was already read' }]);
    const size = contentLength(input.headers.get('content-length'), input.headers.get('content-encoding'));
    const { head, stream } = await peekStream(input.body ?? new ReadableStream({ start: (c) => c.close() }));
    const name = input.url ? fileName(new URL(input.url).pathname) || undefined : undefined;
    return { source: { replayable: false, size, stream }, head, name };
  }
  if (input instanceof ReadableStream) {
    const { head, stream } = await peekStream(input);
    return { source: { replayable: false, size: undefined, stream }, head };
  }
  if (isAsyncIterable(input)) {
    const { head, stream } = await peekStream(streamFromIterable(input));
    // fs.createReadStream(path) carries its path: the best default name there is.
    const path = (input as { path?: unknown }).path;
    return { source: { replayable: false, size: undefined, stream }, head, name: typeof path === 'string' ? fileName(path) : undefined };
  }
  throw new ValidationError([
    {
      path: field,
      message:
        'must be a file path, fileFromPath(path), Blob, File, Uint8Array, ArrayBuffer, ReadableStream, Node Readable or Response',
    },
  ]);
}

/** What is wrong with a file of type `type` (sniffed) for the rule's endpoint, or `undefined`. */
export function typeProblem(rule: UploadRule, type: SniffedType | undefined): string | undefined {
  return type && rule.accept.includes(type.label) ? undefined : `must be ${rule.accept.join(', ')} (found ${type ? type.label : 'an unrecognised file type'})`;
}

/** The message of a file over the limit. */
export function tooLargeMessage(rule: UploadRule, got: string): string {
  return `must be at most ${rule.maxBytes / MiB} MiB (${rule.maxBytes.toLocaleString('en-US')} bytes); ${got}`;
}

/**
 * Check a file against the endpoint's rule without loading it: the size where it is known,
 * and the type from its first bytes. Throws `ValidationError` (naming `field`) before any
 * upload. A stream of unknown size is checked again as it is sent.
 */
export async function prepareFile(
  input: Uploadable,
  rule: UploadRule,
  options: { filename?: string | undefined; field?: string | undefined } = {},
): Promise<PreparedFile> {
  const field = options.field ?? 'file';
  const context = `${rule.kind} upload`;
  // A file object that breaks as it is opened (its stream errors, a getter or Proxy trap
  // throws) is the caller's: a ValidationError naming the field, before any upload.
  const { source, head, name } = await open(input, field).catch((error: unknown) => {
    throw error instanceof ValidationError ? error : new ValidationError([{ path: field, message: `cannot be read: ${errorText(error)}` }], context);
  });
  const fail = async (message: string): Promise<never> => {
    if (!source.replayable) await source.stream.cancel().catch(() => {});
    throw new ValidationError([{ path: field, message }], context);
  };
  if (source.size === 0 || head.byteLength === 0) await fail('is empty');
  const type = sniffMediaType(head);
  const problem = typeProblem(rule, type);
  if (problem) await fail(problem);
  if (source.size !== undefined && source.size > rule.maxBytes)
    await fail(tooLargeMessage(rule, `got ${source.size.toLocaleString('en-US')} bytes`));
  const sniffed = type as SniffedType;
  const extension = sniffed.label === 'JPEG' ? 'jpg' : sniffed.label.toLowerCase();
  return { source, type: sniffed, rule, field, filename: options.filename ?? name ?? `upload.${extension}` };
}
