/**
 * An upload through the proxy: the page's form is read as it streams (uploads/sniff.ts judges
 * the file's first bytes, its size is counted as it goes), and the service gets a form of our
 * own making around the same bytes: one `file` part, a clean filename, the sniffed type. The
 * closing boundary is sent only once the page's form has ended properly within the limit, so
 * the service never sees a complete upload the proxy would refuse.
 */
import { contentLength } from '../internal/content-length.ts';
import type { Exchange } from '../transport/exchange.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, tooLargeMessage, typeProblem, type UploadRule } from '../uploads/inputs.ts';
import { SNIFF_BYTES, sniffMediaType, type SniffedType } from '../schemas/sniff.ts';
import type { Framing } from '../uploads/streamed-body.ts';
import { concatBytes } from '../internal/bytes.ts';
import type { ChunkSource } from '../internal/chunks.ts';
import { FRAMING_ALLOWANCE, boundaryOf, readFilePart } from '../uploads/multipart.ts';
import { ProxyRefusal } from './answers.ts';

/** An upload whose form, type and start were checked: ready to stream on. */
export interface CheckedUpload {
  rule: UploadRule;
  type: SniffedType;
  /** The name the service gets: the page's, without a path or control characters. */
  filename: string;
  /** The first bytes, already read (for the sniff). */
  head: Uint8Array;
  /** The rest of the file's bytes. */
  next: ChunkSource;
}

const malformed = (message: string) => new ProxyRefusal(400, 'invalid_upload', message, { issues: [{ path: 'file', message }] });
/** The refusal of an upload: its status and code, and the message as the issue of the field `file`. */
const uploadRefusal = (status: number, code: string, message: string) => new ProxyRefusal(status, code, `file: ${message}`, { issues: [{ path: 'file', message }] });

/**
 * The page's filename without a path, quotes or control characters (a browser writes `"`, CR
 * and LF as %22, %0D, %0A: those go too); a plain one when nothing is left. The service gets
 * it in a part of our framing, quoted by the platform's FormData.
 */
function safeFilename(sent: string, type: SniffedType): string {
  const base = (sent.replace(/%(?:22|0d|0a)/gi, '').split(/[\\/]/).pop() ?? '').replace(/[\x00-\x1f\x7f"]/g, '').trim().slice(0, 200);
  return base && base !== '.' && base !== '..' ? base : `upload.${type.label === 'JPEG' ? 'jpg' : type.label.toLowerCase()}`;
}

/**
 * Check an upload up to its first bytes: a multipart form whose declared size can fit the
 * endpoint's limit, one `file` part, and a type the endpoint takes (sniffed). Nothing is sent
 * upstream before this resolves.
 */
export async function checkUpload(kind: 'image' | 'video', headers: Headers, read: ChunkSource): Promise<CheckedUpload> {
  const rule = kind === 'image' ? IMAGE_UPLOAD_RULE : VIDEO_UPLOAD_RULE;
  const boundary = boundaryOf(headers.get('content-type'));
  if (!boundary) throw uploadRefusal(400, 'invalid_upload', 'the body must be multipart/form-data with a boundary, holding one field named file');
  const declared = contentLength(headers.get('content-length'));
  if (declared !== undefined && declared > rule.maxBytes + FRAMING_ALLOWANCE)
    throw uploadRefusal(413, 'too_large', tooLargeMessage(rule, `the request declares ${declared.toLocaleString('en-US')} bytes`));
  const part = await readFilePart(read, boundary, malformed);
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let chunk = size < SNIFF_BYTES ? await part.next() : undefined; chunk; chunk = size < SNIFF_BYTES ? await part.next() : undefined) {
    parts.push(chunk);
    size += chunk.byteLength;
  }
  if (size === 0) throw uploadRefusal(400, 'invalid_upload', 'is empty');
  const head = concatBytes(parts);
  const type = sniffMediaType(head);
  const problem = typeProblem(rule, type);
  if (problem) throw uploadRefusal(400, 'invalid_upload', problem);
  if (head.byteLength > rule.maxBytes) throw uploadRefusal(413, 'too_large', tooLargeMessage(rule, 'the file passed it'));
  const filename = safeFilename(part.filename, type as SniffedType);
  return { rule, type: type as SniffedType, filename, head, next: part.next };
}

/**
 * The service's request body: our form around the page's file, pulled as the service takes it.
 * Every pull gives the service `timeout` ms more (an upload takes as long as the page sends;
 * a service that stops taking it is cut off), and the same deadline then covers its answer.
 * Past the limit, or when the page's form goes wrong, `onRefusal` hears the refusal, the
 * upstream request is aborted with it (the exchange, not only the stream: workerd takes a
 * body stream that errors as one that ended, and sends the service a request without its
 * closing boundary), and the stream fails with it.
 */
export function uploadStream(
  upload: CheckedUpload,
  framing: Framing,
  exchange: Exchange,
  timeout: number,
  timedOut: () => unknown,
  onRefusal: (refusal: ProxyRefusal) => void,
): ReadableStream<Uint8Array> {
  const { rule } = upload;
  let stage: 'prefix' | 'head' | 'file' | 'done' = 'prefix';
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        exchange.restartDeadline(timeout, timedOut);
        try {
          if (stage === 'prefix') {
            stage = 'head';
            return controller.enqueue(framing.prefix.slice());
          }
          if (stage === 'head') {
            stage = 'file';
            sent = upload.head.byteLength;
            return controller.enqueue(upload.head);
          }
          if (stage === 'done') return controller.close();
          const chunk = await upload.next();
          if (chunk === undefined) {
            stage = 'done';
            return controller.enqueue(framing.suffix.slice());
          }
          sent += chunk.byteLength;
          if (sent > rule.maxBytes)
            throw uploadRefusal(413, 'too_large', tooLargeMessage(rule, `the upload passed it (${sent.toLocaleString('en-US')} bytes read)`));
          controller.enqueue(chunk);
        } catch (error) {
          if (error instanceof ProxyRefusal) onRefusal(error);
          stage = 'done';
          exchange.cancel(error);
          controller.error(error);
        }
      },
    },
    // Pull only when the service takes more: its backpressure reaches the page's socket.
    { highWaterMark: 0 },
  );
}
