// The upload endpoints (4.2, 4.5) and the store behind them: each upload keeps its bytes, so
// its URL serves them back, and expires 24 hours after it was made.
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, type UploadRule } from '../uploads/inputs.ts';
import { SNIFF_BYTES, sniffMediaType } from '../schemas/sniff.ts';
import { now, nowSeconds } from './clock.ts';
import { imageDimensions } from './image-dimensions.ts';
import { RequestProblem } from './request-problem.ts';

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

  /** Accept one multipart upload (field `file`) or throw the 400 the service answers. */
  async accept(request: Request, kind: 'image' | 'video', origin: string): Promise<StoredUpload> {
    const rule: UploadRule = kind === 'image' ? IMAGE_UPLOAD_RULE : VIDEO_UPLOAD_RULE;
    if (!/^multipart\/form-data\b/i.test(request.headers.get('content-type') ?? ''))
      throw new RequestProblem('the body must be multipart form data with a field named file', 'file');
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      throw new RequestProblem('the multipart body could not be read', 'file');
    }
    const files = form.getAll('file');
    if (files.length === 0) throw new RequestProblem('file is required', 'file');
    if (files.length > 1) throw new RequestProblem(`one ${kind} per upload (got ${files.length} files)`, 'file');
    const file = files[0];
    if (!(file instanceof Blob)) throw new RequestProblem('file must be a file part, not a text field', 'file');
    if (file.size === 0) throw new RequestProblem('file is empty', 'file');
    if (file.size > rule.maxBytes)
      throw new RequestProblem(`file must be at most ${rule.maxBytes / 1024 / 1024} MB (got ${file.size} bytes)`, 'file');
    const bytes = new Uint8Array(await file.arrayBuffer());
    // The type is what the bytes are, whatever the part's Content-Type or name claims.
    const type = sniffMediaType(bytes.subarray(0, SNIFF_BYTES));
    if (!type || !rule.accept.includes(type.label))
      throw new RequestProblem(`file must be ${rule.accept.join(', ')} (found ${type?.label ?? 'an unknown type'})`, 'file');

    const id = newId(kind);
    const extension = type.label === 'JPEG' ? 'jpg' : type.label.toLowerCase();
    const filename = safeName('name' in file && typeof file.name === 'string' ? file.name : '', `upload.${extension}`);
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
    this.#dropExpiredBytes();
    this.#byId.set(id, stored);
    return stored;
  }

  // A long-running mock (a dev server) would otherwise keep every upload's bytes forever; the
  // records stay, for assertions.
  #dropExpiredBytes(): void {
    const at = now();
    for (const upload of this.#byId.values()) if (upload.expiresAt <= at && upload.bytes.byteLength > 0) upload.bytes = new Uint8Array();
  }

  /** An upload by id, while it is still valid. */
  get(id: string): StoredUpload | undefined {
    const upload = this.#byId.get(id);
    return upload && upload.expiresAt > now() ? upload : undefined;
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
