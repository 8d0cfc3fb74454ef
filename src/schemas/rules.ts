/**
 * The request rules as plain checks: the client runs them before any request (validation/),
 * and `omnimedia/schemas` builds its zod schemas from the very same rules (rule-schema.ts), so
 * each rule is written once. Zod-free: zod/mini was 7.7 KB gzip of the whole client's 31.3 KB
 * browser bundle when the client checked requests with it (see docs/design-notes.md).
 */

/**
 * What JSON Schema can say of the values a rule accepts (the keywords of draft-07 and 2020-12
 * alike), for the input schemas of agents' tools (`omnimedia/mcp`). Never stricter than the
 * rule: every value the rule accepts, the schema accepts; what JSON Schema cannot say (a size's
 * multiples of 16, images counted across messages) only the rule checks.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** Where a broken rule is: field names and list indexes, from the value checked down. */
export type RulePath = readonly (string | number)[];

/** One broken rule: where, and what the value must be. */
export interface RuleIssue {
  path: RulePath;
  message: string;
}

/**
 * A rule: checks `value` (found at `path`), pushes each rule it breaks to `issues`, and returns
 * the value to send, converted where the rule says so (`seconds` 8 is sent as "8"). `I` is what
 * a caller may give, for the zod schemas' input types.
 */
export interface Rule<T = unknown, I = T> {
  (value: unknown, issues: RuleIssue[], path: RulePath): T;
  /** Type only: what a caller may give. */
  readonly input?: I;
  /**
   * A leaf rule's own JSON Schema (see {@link JsonSchema}). A rule made of others keeps them
   * instead (`shape`, `optional`, `item`, `forms`, `inner`), and `jsonSchemaOf` (rule-json.ts,
   * for `omnimedia/mcp`) builds its schema from them only when asked: a page never does, and
   * builds none at load.
   */
  readonly json?: JsonSchema;
  /** A list rule's rule of each item, and whether it refuses an empty list. */
  readonly item?: Rule<unknown, unknown>;
  readonly nonEmpty?: boolean;
  /** The forms of an `either` rule. */
  readonly forms?: readonly Rule<unknown, unknown>[];
  /** The rule a `refine` rule checks first. */
  readonly inner?: Rule<unknown, unknown>;
}

/** A rule that lets `undefined` through (an optional field). */
export interface OptionalRule<T = unknown, I = T> extends Rule<T | undefined, I | undefined> {
  readonly optional: Rule<T, I>;
}

/** The fields of an object rule. */
export type Shape = Record<string, Rule<unknown, unknown>>;

/** What an object rule sends: each known field as its rule sends it, unknown fields as given. */
export type ShapeOutput<S extends Shape> = { [K in keyof S]: S[K] extends Rule<infer T, unknown> ? T : never } & Record<string, unknown>;

/** An object whose known fields follow their rules; unknown fields pass through as sent. */
export interface ObjectRule<S extends Shape = Shape> extends Rule<ShapeOutput<S>> {
  readonly shape: S;
  /** What the value must be when it is not an object, e.g. `{upload_id} from uploads.video`. */
  readonly what: string;
}

/** A JSON object: not `null`, not a list. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** "is required" for a missing value, else "must be <what>". */
export const mustBe = (value: unknown, what: string) => (value === undefined ? 'is required' : `must be ${what}`);

/**
 * A rule on one value: `problem` names what is wrong with it, or returns nothing. A missing
 * value is "is required" (wrap the rule in `optional` when it is not).
 */
export function rule<T, I = T>(problem: (value: unknown) => string | undefined, convert?: (value: unknown) => T, json: JsonSchema = {}): Rule<T, I> {
  const check = (value: unknown, issues: RuleIssue[], path: RulePath) => {
    const message = value === undefined ? 'is required' : problem(value);
    if (message) issues.push({ path, message });
    return (convert && !message ? convert(value) : value) as T;
  };
  return Object.assign(check, { json });
}

/** A string (`what` says which kind when it is not one), then `problem` of the string. */
export const text = (what = 'a string', problem: (value: string) => string | undefined = () => undefined, json: JsonSchema = {}): Rule<string> =>
  rule((value) => (typeof value === 'string' ? problem(value) : `must be ${what}`), undefined, { type: 'string', ...json });

/** A string that must not be empty. */
export const filled = (what?: string): Rule<string> => text(what, (value) => (value ? undefined : 'must not be empty'), { minLength: 1 });

/** A whole number from `min` to `max`. */
export const integerFrom = (min: number, max: number): Rule<number> =>
  rule(
    (value) => (Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? undefined : `must be an integer from ${min} to ${max}`),
    undefined,
    { type: 'integer', minimum: min, maximum: max },
  );

export function optional<T, I>(inner: Rule<T, I>): OptionalRule<T, I> {
  const check = (value: unknown, issues: RuleIssue[], path: RulePath) => (value === undefined ? value : inner(value, issues, path));
  return Object.assign(check, { optional: inner });
}

export function object<S extends Shape>(shape: S, what = 'an object'): ObjectRule<S> {
  const check = (value: unknown, issues: RuleIssue[], path: RulePath) => {
    if (!isRecord(value)) {
      issues.push({ path, message: mustBe(value, what) });
      return value as ShapeOutput<S>;
    }
    const out: Record<string, unknown> = { ...value };
    for (const key in shape) {
      const sent = shape[key]!(value[key], issues, [...path, key]);
      if (sent !== value[key]) out[key] = sent;
    }
    return out as ShapeOutput<S>;
  };
  return Object.assign(check, { shape, what });
}

/** A list whose items follow `item`; `what` is said of a value that is not a list. */
export function list<T>(item: Rule<T, unknown>, what: string, empty?: string): Rule<T[]> {
  const check = (value: unknown, issues: RuleIssue[], path: RulePath) => {
    if (!Array.isArray(value)) issues.push({ path, message: mustBe(value, what) });
    else if (empty && value.length === 0) issues.push({ path, message: empty });
    else return value.map((v, i) => item(v, issues, [...path, i]));
    return value as T[];
  };
  return Object.assign(check, { item, nonEmpty: !!empty });
}

/**
 * One of several forms, told apart by `pick` (a string or a list; a part's `type`), each with
 * its own rule, so a broken rule is named where it is; a value of no form "must be <what>".
 * `forms` are the rules `pick` chooses from, for the schema (`anyOf`).
 */
export function either<T>(what: string, pick: (value: unknown) => Rule<T, unknown> | undefined, forms: readonly Rule<unknown, unknown>[]): Rule<T> {
  const check = (value: unknown, issues: RuleIssue[], path: RulePath) => {
    const form = pick(value);
    if (form) return form(value, issues, path);
    issues.push({ path, message: mustBe(value, what) });
    return value as T;
  };
  return Object.assign(check, { forms });
}

/** `inner`, then `problem` of the whole value when `inner` found nothing wrong. */
export function refine<T, I>(inner: Rule<T, I>, problem: (value: T) => string | undefined): Rule<T, I> {
  const check = (value: unknown, issues: RuleIssue[], path: RulePath) => {
    const before = issues.length;
    const sent = inner(value, issues, path);
    const message = issues.length === before ? problem(sent) : undefined;
    if (message) issues.push({ path, message });
    return sent;
  };
  return Object.assign(check, { inner });
}
