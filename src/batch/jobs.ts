/**
 * batch/: many tasks, resumable after any crash without paying twice: the engine behind
 * `client.batch()`, the `omnimedia batch` command and `omnimedia/bullmq`. This file: one job
 * read from a line or an iterable (its own fields checked), and the places a job names a file.
 */
import type { ValidationIssue } from '../errors.ts';
import { BATCH_OPERATIONS, batchIdProblem, type BatchOperation } from '../schemas/batch.ts';
import { isLocalPath } from '../uploads/references.ts';

/** A job whose own fields are valid; its params are checked by the rules of its `op`. */
export interface ReadJob {
  id: string;
  op: BatchOperation;
  params: Record<string, unknown>;
  /** 1-based: the line of the file, or the position in the iterable. */
  line: number;
}

/** A job read: valid fields, or what is wrong (its id, when it had a usable one, for the result line). */
export type JobReading = { job: ReadJob } | { id: string; line: number; issues: ValidationIssue[] };

/** A local file a job names: where in the params, and what it must be. */
export interface FileReference {
  /** e.g. `image[1]`, `input_video`. */
  path: string;
  /** The string as written (relative to the file's directory, or absolute). */
  file: string;
  kind: 'image' | 'video';
}

/**
 * Read one job (a parsed line, or an item of an iterable): its `id` (or `line-<n>`), `op` and
 * `params` checked, every problem listed. `json` is the line's text when it could not be
 * parsed (its error message).
 */
export function readJob(value: unknown, line: number, parseError?: string): JobReading {
  const fallback = `line-${line}`;
  if (parseError !== undefined) return { id: fallback, line, issues: [{ path: '', message: `not a JSON object: ${parseError}` }] };
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { id: fallback, line, issues: [{ path: '', message: 'must be a JSON object with op and params' }] };
  const record = value as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  let id = fallback;
  if (record.id !== undefined) {
    const problem = batchIdProblem(record.id);
    if (problem) issues.push({ path: 'id', message: problem });
    else id = record.id as string;
  }
  const op = record.op;
  if (typeof op !== 'string' || !(BATCH_OPERATIONS as readonly string[]).includes(op))
    issues.push({ path: 'op', message: `must be one of ${BATCH_OPERATIONS.join(', ')}` });
  const params = record.params;
  if (!params || typeof params !== 'object' || Array.isArray(params)) issues.push({ path: 'params', message: 'must be an object: the params of the op' });
  if (issues.length > 0) return { id, line, issues };
  return { job: { id, op: op as BatchOperation, params: params as Record<string, unknown>, line } };
}

/** The string slots of each op where a file goes (the SDK's auto-upload fields). */
const SLOTS: Record<BatchOperation, readonly { field: string; key: 'url' | 'upload_id'; kind: 'image' | 'video'; list: boolean }[]> = {
  'images.generate': [],
  'images.edit': [
    { field: 'image', key: 'url', kind: 'image', list: true },
    { field: 'mask', key: 'url', kind: 'image', list: false },
  ],
  'videos.generate': [{ field: 'images', key: 'url', kind: 'image', list: true }],
  'videos.edit': [{ field: 'input_video', key: 'upload_id', kind: 'video', list: false }],
};

/**
 * Every local file `params` names, and `params` with each replaced by `replace(reference)`
 * (its upload's URL or id, or a placeholder that passes the rules, to check the rest).
 */
export function mapReferences(
  op: BatchOperation,
  params: Record<string, unknown>,
  replace: (reference: FileReference) => string,
): { params: Record<string, unknown>; references: FileReference[] } {
  const references: FileReference[] = [];
  const out = { ...params };
  for (const { field, key, kind, list } of SLOTS[op]) {
    const value = params[field];
    const one = (item: unknown, path: string): unknown => {
      if (typeof item !== 'string' || !isLocalPath(item, key)) return item;
      const reference = { path, file: item, kind };
      references.push(reference);
      return replace(reference);
    };
    if (list && Array.isArray(value)) out[field] = value.map((item, i) => one(item, `${field}[${i}]`));
    else if (value !== undefined) out[field] = one(value, field);
  }
  return { params: out, references };
}

/** What stands for a local file while the params are checked: a value each slot's rule accepts. */
export function placeholderFor(reference: FileReference): string {
  return reference.kind === 'video' ? 'batch-local-file' : 'https://batch.invalid/local-file';
}
