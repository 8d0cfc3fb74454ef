import { ValidationError } from './errors.ts';
import { SNIFF_BYTES, sniffMediaType, type SniffedType } from './sniff.ts';

/**
 * A file to upload: a `Blob`/`File`, bytes (`Uint8Array`, Node `Buffer`, `ArrayBuffer`), or
 * (in Node) a path.
 */
export type Uploadable = Blob | Uint8Array | ArrayBuffer | string;

/** What an upload endpoint accepts. Sizes in MiB: see "Spec gaps and our decisions". */
export interface UploadRule {
  /** e.g. `image`, for messages. */
  kind: string;
  maxBytes: number;
  /** Labels from {@link sniffMediaType} the endpoint takes. */
  accept: readonly string[];
}

const MiB = 1024 * 1024;
export const IMAGE_UPLOAD_RULE: UploadRule = { kind: 'image', maxBytes: 25 * MiB, accept: ['PNG', 'JPEG', 'WebP'] };
export const VIDEO_UPLOAD_RULE: UploadRule = { kind: 'video', maxBytes: 50 * MiB, accept: ['MP4', 'MOV', 'WebM'] };

/** A file ready to send: its bytes (lazily, for a path), name, size and sniffed type. */
export interface PreparedFile {
  blob: Blob;
  filename: string;
  size: number;
  type: SniffedType;
}

// The specifier is a variable so that browser bundlers leave the Node-only branch alone.
const NODE_FS = 'node:fs';

async function toBlob(input: Uploadable): Promise<{ blob: Blob; name?: string }> {
  if (typeof input === 'string') {
    const fs = (await import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_FS)) as {
      openAsBlob(path: string): Promise<Blob>;
    };
    // openAsBlob reads lazily: the file is not loaded into memory here. It throws synchronously
    // for a missing file, hence the try around the await.
    let blob: Blob;
    try {
      blob = await fs.openAsBlob(input);
    } catch (error) {
      throw new ValidationError([{ path: 'file', message: `cannot read "${input}": ${(error as Error).message}` }]);
    }
    return { blob, name: input.split(/[\\/]/).pop() ?? input };
  }
  if (input instanceof Blob) return { blob: input, ...('name' in input && typeof input.name === 'string' ? { name: input.name } : {}) };
  if (input instanceof Uint8Array || input instanceof ArrayBuffer) return { blob: new Blob([input as Uint8Array<ArrayBuffer>]) };
  throw new ValidationError([{ path: 'file', message: 'must be a Blob, File, Uint8Array, ArrayBuffer or a file path' }]);
}

/**
 * Read what is needed to check a file against the endpoint's rule, without loading it: the
 * size, and the first bytes for the type. Throws `ValidationError` before any upload.
 */
export async function prepareFile(input: Uploadable, rule: UploadRule, filename?: string): Promise<PreparedFile> {
  const { blob, name } = await toBlob(input);
  if (blob.size === 0) throw new ValidationError([{ path: 'file', message: 'is empty' }], `${rule.kind} upload`);
  const head = new Uint8Array(await blob.slice(0, SNIFF_BYTES).arrayBuffer());
  const type = sniffMediaType(head);
  if (!type || !rule.accept.includes(type.label)) {
    const found = type ? type.label : 'an unrecognised file type';
    throw new ValidationError(
      [{ path: 'file', message: `must be ${rule.accept.join(', ')} (found ${found})` }],
      `${rule.kind} upload`,
    );
  }
  if (blob.size > rule.maxBytes) {
    throw new ValidationError(
      [
        {
          path: 'file',
          message: `must be at most ${rule.maxBytes / MiB} MiB (${rule.maxBytes.toLocaleString('en-US')} bytes); got ${blob.size.toLocaleString('en-US')} bytes`,
        },
      ],
      `${rule.kind} upload`,
    );
  }
  const extension = type.label === 'JPEG' ? 'jpg' : type.label.toLowerCase();
  return { blob, size: blob.size, type, filename: filename ?? name ?? `upload.${extension}` };
}

/** A fresh multipart body for one attempt, the part typed with the sniffed media type. */
export function multipartBody(file: PreparedFile): FormData {
  const form = new FormData();
  form.append('file', new File([file.blob], file.filename, { type: file.type.mediaType }));
  return form;
}
