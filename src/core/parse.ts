import * as z from 'zod/mini';
import { APIError, ValidationError, type ValidationIssue } from './errors.ts';

function formatPath(path: readonly PropertyKey[], prefix?: string): string {
  let out = prefix ?? '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out;
}

/** zod issues as `{path, message}` pairs naming the field and the rule. */
export function toValidationIssues(error: z.core.$ZodError, prefix?: string): ValidationIssue[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path, prefix), message: issue.message }));
}

/**
 * Read a response leniently (see the schemas). A body without what we cannot do without, a
 * task id above all, is an `APIError` that keeps the raw body.
 */
export function parseResponse<T extends z.core.$ZodType>(
  schema: T,
  body: unknown,
  what: string,
  taskId?: string,
): z.output<T> {
  const result = z.safeParse(schema, body);
  if (result.success) return result.data;
  const problems = toValidationIssues(result.error)
    .map((i) => `${i.path || 'body'}: ${i.message}`)
    .join('; ');
  throw new APIError(`${what}: unexpected response from the service (${problems})`, { body, taskId, cause: result.error });
}

/**
 * Validate caller input: a `ValidationError` naming every broken rule (with `issues` found
 * earlier by the caller), before any request.
 */
export function parseInput<T extends z.core.$ZodType>(
  schema: T,
  input: unknown,
  context: string,
  issues: readonly ValidationIssue[] = [],
): z.output<T> {
  const result = z.safeParse(schema, input);
  const all = result.success ? issues : [...issues, ...toValidationIssues(result.error)];
  if (all.length > 0 || !result.success) throw new ValidationError(all, context);
  return result.data;
}
