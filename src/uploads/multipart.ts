/**
 * A streaming reader of the one form an upload is: a single part named `file`, as a browser's
 * `FormData` (or the SDK's own framing) writes it. It reads the part's headers, then hands the
 * file's bytes on as they come, never holding more than a read's worth plus a boundary's. The
 * proxy reads a page's uploads with it, the mock service the uploads it is sent; each says how
 * a malformed form is refused (`malformed`).
 *
 * Why our own: the readers that take web streams buffer every part whole (@remix-run/
 * multipart-parser keeps a part's bytes in an array until it ends: 50 MiB for a video), and
 * busboy reads Node streams (an edge worker has none). And strictness is the point here: an
 * upload is exactly one file part, so anything else (another field, a second file, a preamble,
 * `filename*`, an unknown part header, bytes after the closing boundary, a body cut short) is
 * refused rather than read one way by us and another by the service.
 */
import type { ChunkSource } from '../internal/chunks.ts';

/** Part headers larger than this are not a browser's: 8 KiB. */
const MAX_PART_HEADERS = 8 * 1024;
/** Room for the form's framing around the file in a declared Content-Length: 64 KiB. */
export const FRAMING_ALLOWANCE = 64 * 1024;
const CRLF = new Uint8Array([13, 10]);
const HEADERS_END = new Uint8Array([13, 10, 13, 10]);

/** What a malformed form is refused with, from its description (thrown as it is). */
export type MultipartRefusal = (message: string) => unknown;

/** The file part: its name as sent, and its bytes, read on demand. */
export interface FilePart {
  filename: string;
  /** The next bytes of the file, or `undefined` once the form has ended properly (one part, closed). */
  next: ChunkSource;
}

/** The boundary of a `multipart/form-data` content type, or `undefined` when the type is not exactly that. */
export function boundaryOf(contentType: string | null): string | undefined {
  const match = /^multipart\/form-data\s*;\s*boundary=(?:"([0-9A-Za-z'()+_,./:=? -]{1,70})"|([0-9A-Za-z'()+_,./:=?-]{1,70}))\s*$/i.exec(contentType ?? '');
  const boundary = match?.[1] ?? match?.[2];
  return boundary && !boundary.endsWith(' ') ? boundary : undefined;
}

/** Where `needle` starts in `bytes` at or after `from`, or -1. */
function indexOf(bytes: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0] as number;
  for (let i = bytes.indexOf(first, from); i !== -1 && i <= bytes.length - needle.length; i = bytes.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && bytes[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** How many of the last bytes of `bytes` are the start of `needle` (fewer than all of it). */
function delimiterStartAtEnd(bytes: Uint8Array, needle: Uint8Array): number {
  for (let n = Math.min(bytes.length, needle.length - 1); n > 0; n--) {
    let j = 0;
    while (j < n && bytes[bytes.length - n + j] === needle[j]) j++;
    if (j === n) return n;
  }
  return 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The part's headers, checked: a `form-data` disposition named `file` with a filename; nothing else but a content type. */
function partFilename(block: string, malformed: MultipartRefusal): string {
  let disposition: string | undefined;
  for (const line of block.split('\r\n')) {
    // Trimmed after the match: a lazy `(.*?)[ \t]*$` is quadratic in a run of blanks.
    const match = /^([A-Za-z0-9-]+):(.*)$/.exec(line);
    if (!match) throw malformed('a part header that is not "Name: value" (or is folded)');
    const name = (match[1] as string).toLowerCase();
    if (name === 'content-disposition' && disposition === undefined) disposition = (match[2] as string).trim();
    else if (name !== 'content-type') throw malformed(`an unexpected part header (${name}): an upload is one plain file part`);
  }
  const parsed = /^form-data((?:\s*;\s*[A-Za-z*]+=(?:"[^"]*"|[^;"\s]*))*)\s*$/i.exec(disposition ?? '');
  if (!parsed) throw malformed('the part is not a form-data field');
  const params = new Map<string, string>();
  for (const [, key, quoted, plain] of (parsed[1] as string).matchAll(/;\s*([A-Za-z*]+)=(?:"([^"]*)"|([^;"\s]*))/g)) {
    const lower = (key as string).toLowerCase();
    if ((lower !== 'name' && lower !== 'filename') || params.has(lower)) throw malformed(`an unexpected or repeated parameter (${lower}) in the part's disposition`);
    params.set(lower, quoted ?? plain ?? '');
  }
  if (params.get('name') !== 'file') throw malformed('the form must hold one field, named file');
  const filename = params.get('filename');
  if (filename === undefined) throw malformed('the file field carries no filename: it is not a file');
  return filename;
}

/**
 * Read the form's opening boundary and the part's headers (at most 8 KiB of them), and return
 * the file part, whose `next()` gives its bytes as they arrive and checks, at its end, that the
 * form closes right after it. Anything malformed throws what `malformed(description)` returns.
 */
export async function readFilePart(read: ChunkSource, boundary: string, malformed: MultipartRefusal): Promise<FilePart> {
  const encoder = new TextEncoder();
  const opening = encoder.encode(`--${boundary}\r\n`);
  // The file's end: CRLF, then the boundary; then "--" closes the form (anything else is another part).
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  let buffer: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  let ended = false;
  /** The next chunk joined to what is held: the chunk itself when nothing is. */
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const chunk = await read();
    if (chunk === undefined) ended = true;
    else buffer = concat(buffer, chunk);
    return !ended;
  };

  while (buffer.length < opening.length && (await more()));
  if (indexOf(buffer.subarray(0, opening.length), opening) !== 0) {
    // `--boundary--`: a FormData with no field at all.
    const empty = indexOf(buffer.subarray(0, opening.length), encoder.encode(`--${boundary}--`)) === 0;
    throw malformed(empty ? 'the form holds no field: a field named file is required' : 'the body does not start with the form\u2019s boundary');
  }
  let headersEnd: number;
  const tooLarge = () => malformed('the part\u2019s headers are larger than 8 KiB');
  while ((headersEnd = indexOf(buffer, HEADERS_END, opening.length)) === -1) {
    if (buffer.length > MAX_PART_HEADERS) throw tooLarge();
    if (!(await more())) throw malformed('the body ends inside the part\u2019s headers');
  }
  // Also when one read brought them all (a socket read is up to 64 KiB; a parsed body, whole).
  if (headersEnd - opening.length > MAX_PART_HEADERS) throw tooLarge();
  const filename = partFilename(new TextDecoder('utf-8', { fatal: false }).decode(buffer.subarray(opening.length, headersEnd)), malformed);
  buffer = buffer.subarray(headersEnd + HEADERS_END.length);

  let done = false;
  const next: ChunkSource = async () => {
    for (;;) {
      if (done) return undefined;
      const at = indexOf(buffer, delimiter);
      if (at !== -1) {
        const last = buffer.subarray(0, at);
        buffer = buffer.subarray(at + delimiter.length);
        await closing();
        done = true;
        if (last.length > 0) return last;
        continue;
      }
      // Everything but a possible start of the delimiter can go on now, as a view of the chunk
      // read: what is held back is the buffer's end that begins a delimiter, most often nothing.
      // Holding its last delimiter's length whatever it was joined it to every next chunk, a
      // copy of each (the mock keeps an upload's bytes: a refused image upload held them twice).
      const keep = delimiterStartAtEnd(buffer, delimiter);
      const ready = buffer.subarray(0, buffer.length - keep);
      buffer = buffer.subarray(buffer.length - keep);
      if (ready.length > 0) return ready;
      if (!(await more())) throw malformed('the body ends before the form\u2019s closing boundary (cut short?)');
    }
  };
  /** After the file's delimiter: "--", an optional CRLF, then the end of the body, and nothing else. */
  const closing = async () => {
    while (buffer.length < 4 && (await more()));
    if (buffer[0] !== 45 || buffer[1] !== 45) {
      throw malformed(indexOf(buffer.subarray(0, 2), CRLF) === 0 ? 'the form holds more than one part: an upload is one file' : 'the form\u2019s boundary is malformed');
    }
    const rest = buffer.subarray(2);
    if (!(rest.length === 0 || (rest.length === 2 && rest[0] === 13 && rest[1] === 10)) || (await more()))
      throw malformed('the body goes on after the form\u2019s closing boundary');
  };
  return { filename, next };
}
