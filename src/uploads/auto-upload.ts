import { ValidationError, type ValidationIssue } from '../errors.ts';
import type { FileInput } from '../schemas/file-input.ts';
import { isFileInput, prepareFile, type PreparedFile, type UploadRule } from './inputs.ts';
import { isLocalPath, resolveReference } from './references.ts';
import { errorText } from '../internal/error-text.ts';
import type { Uploader } from './send.ts';

interface Pending {
  placeholder: string;
  field: string;
  input: FileInput;
  rule: UploadRule;
  key: 'url' | 'upload_id';
  prepared?: PreparedFile;
}

/**
 * The file objects of one submission. Building the body puts a placeholder where each file
 * goes; then every file is checked (type, size) and the whole body validated, and only when
 * all of it is valid are the files uploaded, in parallel, and their URLs/ids put in place. So
 * a bad prompt never costs an upload, and a bad file never a submission.
 */
export class AutoUploads {
  readonly #pending: Pending[] = [];
  readonly #issues: ValidationIssue[];
  readonly #id = Math.random().toString(36).slice(2);

  constructor(issues: ValidationIssue[]) {
    this.#issues = issues;
  }

  /**
   * The string for a reference: a string as is, an upload record's `key` (expiry checked),
   * or a placeholder for a file object to upload.
   */
  reference<R extends { expires_at?: number | undefined }>(
    reference: string | R | FileInput,
    key: 'url' | 'upload_id',
    path: string,
    rule: UploadRule,
  ): string {
    try {
      return this.#reference(reference, key, path, rule);
    } catch (error) {
      // A class instance or a Proxy whose getter or trap throws (plain data was read already).
      this.#issues.push({ path, message: `cannot be read: ${errorText(error)}` });
      return '';
    }
  }

  #reference<R extends { expires_at?: number | undefined }>(reference: string | R | FileInput, key: 'url' | 'upload_id', path: string, rule: UploadRule): string {
    if (isFileInput(reference)) {
      const placeholder = `omnimedia-upload://${this.#id}/${this.#pending.length}`;
      this.#pending.push({ placeholder, field: path, input: reference, rule, key });
      return placeholder;
    }
    // A path where a URL or an upload id goes is the commonest slip, and the service would
    // answer it with a late 400: say what to do instead, before anything is sent. An upload id
    // is opaque, so only what is surely a path is refused: one that starts like a path (./,
    // ../, /, ~/, C:\), has a backslash, or ends with a video's extension.
    if (
      typeof reference === 'string' &&
      reference !== '' &&
      (key === 'url' ? !URL.canParse(reference) : isLocalPath(reference, key))
    ) {
      this.#issues.push({
        path,
        message: `must be ${key === 'url' ? 'an upload URL' : 'a video upload id'}, not "${reference.slice(0, 80)}" (a string is never read as a path: pass fileFromPath(...) to upload a file)`,
      });
    }
    return resolveReference(reference as string | R, key as keyof R & string, path, this.#issues);
  }

  get size(): number {
    return this.#pending.length;
  }

  /** Sniff and size-check every file (in parallel), adding what is wrong to the issues. */
  async check(): Promise<void> {
    await Promise.all(
      this.#pending.map(async (pending) => {
        try {
          pending.prepared = await prepareFile(pending.input, pending.rule, { field: pending.field });
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          this.#issues.push(...error.issues);
        }
      }),
    );
  }

  /** Give up: release any one-shot stream that was opened. */
  async discard(): Promise<void> {
    await Promise.all(
      this.#pending.map((p) => (p.prepared && !p.prepared.source.replayable ? p.prepared.source.stream.cancel().catch(() => {}) : undefined)),
    );
  }

  /**
   * Check the files, then `validate` the body (which throws `ValidationError` with every issue
   * found so far); only then upload the files and return the body with their URLs/ids.
   */
  async settle<T>(send: Uploader, signal: AbortSignal | undefined, validate: () => T): Promise<T> {
    await this.check();
    let body: T;
    try {
      body = validate();
    } catch (error) {
      await this.discard();
      throw error;
    }
    return this.upload(send, body, signal);
  }

  /** Upload every file in parallel and put its URL or id where its placeholder is. */
  async upload<T>(send: Uploader, body: T, signal: AbortSignal | undefined): Promise<T> {
    if (this.#pending.length === 0) return body;
    const values = await Promise.all(
      this.#pending.map(async (pending) => {
        const record = await send(pending.prepared as PreparedFile, signal ? { signal } : {});
        return [pending.placeholder, (record as { url?: string; upload_id?: string })[pending.key] as string] as const;
      }),
    );
    const byPlaceholder = new Map(values);
    const replace = (value: unknown): unknown => {
      if (typeof value === 'string') return byPlaceholder.get(value) ?? value;
      if (Array.isArray(value)) return value.map(replace);
      if (value && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
      return value;
    };
    return replace(body) as T;
  }
}
