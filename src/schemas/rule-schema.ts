import * as z from 'zod/mini';
import { mustBe, type ObjectRule, type OptionalRule, type Rule, type RuleIssue, type Shape } from './rules.ts';

/**
 * zod schemas built from the request rules (rules.ts), for `omnimedia/schemas`: the same checks
 * the client runs, with the same paths and messages, so each rule is written once. Only this
 * entry imports zod.
 */

/** The zod schema of one rule: its issues (paths from the value down), its value as the output. */
function ruleSchema<T, I>(rule: Rule<T, I>): z.ZodMiniType<T, I> {
  return z.transform((input: unknown, ctx) => {
    const issues: RuleIssue[] = [];
    const sent = rule(input, issues, []);
    for (const { path, message } of issues) ctx.issues.push({ code: 'custom', message, input, path: [...path] });
    return issues.length > 0 ? z.NEVER : sent;
  }) as unknown as z.ZodMiniType<T, I>;
}

/** Each field's zod schema: optional where its rule lets `undefined` through. */
export type ZodShape<S extends Shape> = {
  [K in keyof S]: S[K] extends OptionalRule<infer T, infer I>
    ? z.ZodMiniOptional<z.ZodMiniType<T, I>>
    : S[K] extends Rule<infer T, infer I>
      ? z.ZodMiniType<T, I>
      : never;
};

/**
 * A `z.looseObject` with a schema per field of an object rule (unknown fields pass through), so
 * it can be extended and picked like any zod object; its own message is the rule's.
 */
export function objectSchema<S extends Shape>(rule: ObjectRule<S>): z.ZodMiniObject<ZodShape<S>, z.core.$loose> {
  const shape: Record<string, z.core.$ZodType> = {};
  for (const [key, field] of Object.entries(rule.shape)) {
    const optional = (field as Partial<OptionalRule>).optional;
    shape[key] = optional ? z.optional(ruleSchema(optional)) : ruleSchema(field);
  }
  return z.looseObject(shape, { error: (issue) => mustBe(issue.input, rule.what) }) as unknown as z.ZodMiniObject<ZodShape<S>, z.core.$loose>;
}
