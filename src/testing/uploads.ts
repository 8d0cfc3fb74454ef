// The upload endpoints (4.2, 4.5) and the store behind them: each upload keeps its bytes, so
// its URL serves them back, and expires 24 hours after it was made. An upload is read as it
// streams, by the proxy's reader (uploads/multipart.ts), and refused with 413 the moment it
// passes the spec's limit: a 600 MiB body costs the mock what the limit does, not 600 MiB.
// The store is bounded: the records of the last MAX_UPLOADS uploads, and their bytes up to
// MAX_UPLOAD_BYTES (an upload whose bytes went is served no more, as if it had expired).
import { dropOldest } from '../internal/bounded-map.ts';
import { concatBytes } from '../internal/bytes.ts';
import { chunksOf } from '../internal/chunks.ts';
import { contentLength } from '../internal/content-length.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, tooLargeMessage, type UploadRule } from '../uploads/inputs.ts';
import { FRAMING_ALLOWANCE, boundaryOf, readFilePart } from '../uploads/multipart.ts';
import { SNIFF_BYTES, sniffMediaType } from '../schemas/sniff.ts';
import { now, nowSeconds } from './clock.ts';
import { imageDimensions } from './image-dimensions.ts';
import { RequestProblem } from './request-problem.ts';

/** Upload records kept (the oldest go first). */
const MAX_UPLOADS = 10_000;
/** Bytes of uploads kept, all uploads together: 256 MiB (five videos at the spec's limit). */
const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

/**
 * How long an upload stays usable: 24 hours (spec 2.2, 2.3, 8).
 *
 * @example
 * ```ts
 * const upload = await client.uploads.image(png);
 * upload.expires_at === upload.created_at + UPLOAD_TTL_SECONDS; // true with the mock
 * ```
 */
export const UPLOAD_TTL_SECONDS = 24 * 60 * 60;

export interface StoredUpload {
  id: string;
  kind: 'image' | 'video';
  /** The record the endpoint returned. */
  record: Record<string, unknown>;
  bytes: Uint8Array;
  contentType: string;
  /** ms since the epoch. */
  expiresAt: number;
}

let uploadCounter = 0;

function newId(kind: 'image' | 'video'): string {
  uploadCounter += 1;
  const random = Math.random().toString(36).slice(2, 8);
  return `${kind === 'image' ? 'img' : 'vid'}_${uploadCounter.toString(36)}${random}`;
}

/** A filename safe to put in a URL path. */
function safeName(name: string, fallback: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? fallback : cleaned;
}

export class UploadStore {
  readonly #byId = new Map<string, StoredUpload>();
  readonly #limits: { uploads: number; bytes: number };

  constructor(limits = { uploads: MAX_UPLOADS, bytes: MAX_UPLOAD_BYTES }) {
    this.#limits = limits;
  }

  /**
   * Accept one multipart upload (one field, `file`) as it streams, or throw what the service
   * answers: 400 for a malformed form, a wrong type or an empty file, 413 past the limit.
   */
  async accept(request: Request, kind: 'image' | 'video', origin: string): Promise<StoredUpload> {
    const rule: UploadRule = kind === 'image' ? IMAGE_UPLOAD_RULE : VIDEO_UPLOAD_RULE;
    const tooLarge = (got: string) => new RequestProblem(`file ${tooLargeMessage(rule, got)}`, 'file', 413);
    const boundary = boundaryOf(request.headers.get('content-type'));
    if (!boundary) throw new RequestProblem('the body must be multipart/form-data with a boundary, holding one field named file', 'file');
    const declared = contentLength(request.headers.get('content-length'));
    if (declared !== undefined && declared > rule.maxBytes + FRAMING_ALLOWANCE)
      throw tooLarge(`the request declares ${declared.toLocaleString('en-US')} bytes`);
    const body = chunksOf(request.body);
    let name: string;
    const parts: Uint8Array[] = [];
    let size = 0;
    try {
      const part = await readFilePart(body.read, boundary, (message) => new RequestProblem(message, 'file'));
      name = part.filename;
      for (let chunk = await part.next(); chunk !== undefined; chunk = await part.next()) {
        size += chunk.byteLength;
        if (size > rule.maxBytes) throw tooLarge(`the upload passed it (${size.toLocaleString('en-US')} bytes read)`);
        parts.push(chunk);
      }
    } catch (error) {
      // Nothing more is read (the server closes the rest once the refusal is sent).
      body.release();
      throw error;
    }
    if (size === 0) throw new RequestProblem('file is empty', 'file');
    const bytes = concatBytes(parts);
    // The type is what the bytes are, whatever the part's Content-Type or name claims.
    const type = sniffMediaType(bytes.subarray(0, SNIFF_BYTES));
    if (!type || !rule.accept.includes(type.label))
      throw new RequestProblem(`file must be ${rule.accept.join(', ')} (found ${type?.label ?? 'an unknown type'})`, 'file');

    const id = newId(kind);
    const extension = type.label === 'JPEG' ? 'jpg' : type.label.toLowerCase();
    const filename = safeName(name, `upload.${extension}`);
    const created = nowSeconds();
    const url = `${origin}/files/uploads/${id}/${encodeURIComponent(filename)}`;
    const common = { filename, content_type: type.mediaType, bytes: bytes.byteLength, created_at: created, expires_at: created + UPLOAD_TTL_SECONDS };
    let record: Record<string, unknown>;
    if (kind === 'image') {
      const size = imageDimensions(bytes, type.mediaType);
      if (!size) throw new RequestProblem(`file is not a readable ${type.label} image`, 'file');
      record = { url, ...common, width: size.width, height: size.height };
    } else {
      record = { upload_id: id, url, ...common };
    }
    const stored: StoredUpload = { id, kind, record, bytes, contentType: type.mediaType, expiresAt: (created + UPLOAD_TTL_SECONDS) * 1000 };
    this.#keep(stored);
    return stored;
  }

  // A long-running mock (a dev server, a port any page can reach) would otherwise keep every
  // upload forever: expired bytes go, then the oldest records past MAX_UPLOADS, then the oldest
  // bytes past MAX_UPLOAD_BYTES (the records stay, for assertions and reference checks).
  #keep(stored: StoredUpload): void {
    this.#byId.set(stored.id, stored);
    dropOldest(this.#byId, this.#limits.uploads);
    const at = now();
    let kept = 0;
    for (const upload of this.#byId.values()) kept += upload.expiresAt <= at ? 0 : upload.bytes.byteLength;
    for (const upload of this.#byId.values()) {
      if (upload.expiresAt > at && kept <= this.#limits.bytes) continue;
      if (upload === stored) break;
      if (upload.expiresAt > at) kept -= upload.bytes.byteLength;
      upload.bytes = new Uint8Array();
    }
  }

  /** An upload by id, while it is still valid and its bytes are kept. */
  get(id: string): StoredUpload | undefined {
    const upload = this.#byId.get(id);
    return upload && upload.expiresAt > now() && upload.bytes.byteLength > 0 ? upload : undefined;
  }

  /** The id in one of our upload URLs (`.../files/uploads/{id}/{name}`), or undefined. */
  static idFromUrl(url: string): string | undefined {
    if (!URL.canParse(url)) return undefined;
    return /\/files\/uploads\/([^/]+)\/[^/]*$/.exec(new URL(url).pathname)?.[1];
  }

  /**
   * Check a reference image URL: only URLs the image upload returned, still valid (spec 4.4,
   * 8). Throws the 400 otherwise.
   */
  requireImage(url: string, param: string): StoredUpload {
    const id = UploadStore.idFromUrl(url);
    const known = id ? this.#byId.get(id) : undefined;
    if (!known || known.kind !== 'image' || known.record.url !== url)
      throw new RequestProblem(`${param} must be a URL returned by the image upload endpoint (got ${url})`, param);
    if (known.expiresAt <= now()) throw new RequestProblem(`${param}: the upload expired; upload the image again`, param);
    return known;
  }

  /** Check a video `upload_id`: known and still valid. */
  requireVideo(uploadId: string): StoredUpload {
    const known = this.#byId.get(uploadId);
    if (!known || known.kind !== 'video') throw new RequestProblem(`input_video.upload_id ${uploadId} is not a video upload`, 'input_video.upload_id');
    if (known.expiresAt <= now()) throw new RequestProblem('input_video: the upload expired; upload the video again', 'input_video.upload_id');
    return known;
  }

  /** Every upload, valid or expired (for assertions in tests). */
  all(): StoredUpload[] {
    return [...this.#byId.values()];
  }

  clear(): void {
    this.#byId.clear();
  }
}
