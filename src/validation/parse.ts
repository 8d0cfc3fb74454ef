/**
 * validation/: the rules put to work, inputs checked into `ValidationError`s (the request
 * rules of schemas/, plain checks) and answers into `APIError`s (answers.ts). Zod-free: the
 * client never loads zod; `omnimedia/schemas` builds zod schemas from the same rules.
 */
import { ValidationError, type ValidationIssue } from '../errors.ts';
import type { Rule, RuleIssue, RulePath } from '../schemas/rules.ts';

/** `messages[0].content`: a rule's path as `ValidationIssue.path` writes it. */
function formatPath(path: RulePath): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${key}`;
  return out;
}

/** Check `value` (found at `path`) by `rule`, adding each rule it breaks to `issues`; returns what is sent. */
export function checkInput<T>(rule: Rule<T, unknown>, value: unknown, issues: ValidationIssue[], path: RulePath = []): T {
  const found: RuleIssue[] = [];
  const sent = rule(value, found, path);
  for (const issue of found) issues.push({ path: formatPath(issue.path), message: issue.message });
  return sent;
}

/**
 * Validate caller input: a `ValidationError` naming every broken rule (with `issues` found
 * earlier by the caller), before any request.
 */
export function parseInput<T>(rule: Rule<T, unknown>, input: unknown, context: string, issues: readonly ValidationIssue[] = []): T {
  const all = [...issues];
  const sent = checkInput(rule, input, all);
  if (all.length > 0) throw new ValidationError(all, context);
  return sent;
}
