import * as z from 'zod/mini';
import { APIError, ValidationError, type ValidationIssue } from '../errors.ts';

function formatPath(path: readonly PropertyKey[], prefix?: string): string {
  let out = prefix ?? '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out;
}

/** zod issues as `{path, message}` pairs naming the field and the rule. */
export function toValidationIssues(error: z.core.$ZodError, prefix?: string): ValidationIssue[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path, prefix), message: issue.message }));
}

/** Issues named in a message at most; the rest are counted. */
const MAX_ISSUES_SHOWN = 5;

/** What a response said besides its body, for the error about a body we cannot use. */
export interface AnswerContext {
  taskId?: string | undefined;
  status?: number | undefined;
  headers?: Headers | undefined;
  requestId?: string | undefined;
}

/**
 * Read a response leniently (see the schemas). A body without what we cannot do without, a
 * task id above all, is an `APIError` that keeps the raw body and the response's status,
 * headers and request id. Whatever the body, only an `APIError` is thrown (a schema that
 * throws, on a body too big to report on, is reported too).
 */
export function parseResponse<T extends z.core.$ZodType>(schema: T, body: unknown, what: string, context: AnswerContext = {}): z.output<T> {
  const result = validateAnswer(schema, body, what, context);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  const problems = issues
    .slice(0, MAX_ISSUES_SHOWN)
    .map((i) => `${i.path || 'body'}: ${i.message}`)
    .join('; ');
  const more = issues.length > MAX_ISSUES_SHOWN ? `; and ${(issues.length - MAX_ISSUES_SHOWN).toLocaleString('en-US')} more` : '';
  throw new APIError(`${what}: unexpected response from the service (${problems}${more})`, { ...context, body, cause: result.error });
}

function validateAnswer<T extends z.core.$ZodType>(schema: T, body: unknown, what: string, context: AnswerContext) {
  try {
    return z.safeParse(schema, body);
  } catch (error) {
    throw new APIError(`${what}: unexpected response from the service (it could not be validated: ${String((error as Error)?.message ?? error)})`, {
      ...context,
      body,
      cause: error,
    });
  }
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
