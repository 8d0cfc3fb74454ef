/**
 * The one rule for a task id, checked before any request that names one and on every task the
 * service or a callback hands over: a non-empty string of well-formed Unicode (a lone surrogate
 * cannot be put in a URL: `encodeURIComponent` throws `URIError` on it), at most
 * `MAX_TASK_ID_LENGTH` characters, and not `.` or `..` (which URL resolution would drop from
 * the path, sending the query to another endpoint). Zod-free, so a wait checks it at once.
 */

/** Longest task id accepted. The service's ids are a few dozen characters; this leaves room. */
export const MAX_TASK_ID_LENGTH = 512;

/** What is wrong with `value` as a task id, or `undefined` when it is a good one. */
export function taskIdProblem(value: unknown): string | undefined {
  if (value === undefined) return 'is required';
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_TASK_ID_LENGTH) return `must be at most ${MAX_TASK_ID_LENGTH} characters (got ${value.length.toLocaleString('en-US')})`;
  if (!value.isWellFormed()) return 'must be well-formed Unicode (it holds a lone surrogate)';
  if (value === '.' || value === '..') return 'must not be "." or ".."';
  return undefined;
}
