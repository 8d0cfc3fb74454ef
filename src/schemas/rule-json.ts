import type { JsonSchema, OptionalRule, Rule } from './rules.ts';

/**
 * What JSON Schema can say of the values `rule` accepts (see `JsonSchema` in rules.ts), for the
 * input schemas of agents' tools (`omnimedia/mcp`): built from the rules it is made of when
 * asked, so the client, which only checks, carries and builds none (a page's bundle, and the
 * work of loading the package). Unknown fields of an object pass through (as the rule sends
 * them), so its schema allows them too.
 *
 * @example
 * ```ts
 * const schema = jsonSchemaOf(IMAGE_GENERATE_RULE); // { type: 'object', properties: {...}, required: ['model', 'prompt'] }
 * ```
 */
export function jsonSchemaOf(rule: Rule<unknown, unknown>): JsonSchema {
  const { shape, optional } = rule as Partial<OptionalRule & { shape: Record<string, Rule<unknown, unknown>> }>;
  if (optional) return jsonSchemaOf(optional);
  if (rule.inner) return jsonSchemaOf(rule.inner);
  if (shape)
    return {
      type: 'object',
      properties: Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, jsonSchemaOf(field)])),
      required: Object.keys(shape).filter((key) => !('optional' in shape[key]!)),
    };
  if (rule.item) return { type: 'array', items: jsonSchemaOf(rule.item), ...(rule.nonEmpty ? { minItems: 1 } : {}) };
  if (rule.forms) return { anyOf: rule.forms.map(jsonSchemaOf) };
  return rule.json ?? {};
}
