import * as z from 'zod/mini';
import { ValidationError, type ValidationIssue } from '../errors.ts';

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
