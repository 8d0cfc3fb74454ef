import type { ValidationIssue } from '../errors.ts';

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
  const expires = reference.expires_at;
  if (typeof expires === 'number' && expires * 1000 <= now) {
    const at = new Date(expires * 1000);
    issues.push({
      path,
      message: `the upload expired at ${Number.isNaN(at.getTime()) ? `expires_at ${expires}` : at.toISOString()}: upload the file again`,
    });
  }
  return reference[key] as unknown as string;
}
