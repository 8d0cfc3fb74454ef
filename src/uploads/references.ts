import type { ValidationIssue } from '../errors.ts';
import { epochMs } from '../schemas/time.ts';

/**
 * `true` when a string given where an upload goes is surely a local path: for a URL, anything
 * but an http(s) URL; for an opaque upload id, what starts like a path (`./`, `../`, `/`, `~/`,
 * `C:\`), has a backslash, or ends with a video's extension.
 */
export function isLocalPath(reference: string, key: 'url' | 'upload_id'): boolean {
  if (reference === '') return false;
  return key === 'url' ? !/^https?:\/\//i.test(reference) : /^(\.{0,2}\/|~\/|[a-z]:[\\/])|\\|\.(mp4|mov|webm|m4v|mkv|avi)$/i.test(reference);
}

/** A reference to something already uploaded: its string, or an upload record. */
type Record_ = { expires_at?: number | undefined };

/**
 * The string to send for a reference (a URL or upload id), or an issue when it is an expired
 * upload record (the service keeps uploads 24 hours).
 */
export function resolveReference<R extends Record_>(
  reference: string | R,
  key: keyof R & string,
  path: string,
  issues: ValidationIssue[],
  now = Date.now(),
): string {
  if (typeof reference === 'string') return reference;
  if (!reference || typeof reference !== 'object') return reference as unknown as string;
  // A record may be the caller's own, written in ms or as a date-time.
  const expires = epochMs(reference.expires_at);
  if (expires !== undefined && expires <= now) {
    issues.push({
      path,
      message: `the upload expired at ${new Date(expires).toISOString()}: upload the file again`,
    });
  }
  return reference[key] as unknown as string;
}
