import * as z from 'zod/mini';

/** Build a zod error option that says "is required" for a missing value, else what it must be. */
export function mustBe(what: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`) };
}

/** Length in Unicode code points, which is what a person counts as characters (an emoji is one). */
export function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

export const MAX_IMAGE_PROMPT_LENGTH = 4000;

/** A non-empty prompt; `max` in code points when the spec gives a limit. */
export function promptSchema(max?: number) {
  return z.string(mustBe('a string')).check(
    z.superRefine((value, ctx) => {
      if (value.trim().length === 0) ctx.issues.push({ code: 'custom', input: value, message: 'must not be empty' });
      else if (max !== undefined) {
        const length = countCodePoints(value);
        if (length > max)
          ctx.issues.push({
            code: 'custom',
            input: value,
            message: `must be at most ${max.toLocaleString('en-US')} characters (got ${length.toLocaleString('en-US')})`,
          });
      }
    }),
  );
}

export const modelSchema = z.string(mustBe('a string')).check(z.minLength(1, 'must not be empty'));

/** The service POSTs the result to this address, so it must be absolute http(s). */
export const callbackUrlSchema = z.string(mustBe('a string')).check(
  z.refine((value) => {
    if (!URL.canParse(value)) return false;
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  }, 'must be an absolute http(s) URL'),
);

/** `a`, `b`, ... as a readable message fragment: `"a", "b" or "c"`. */
export function oneOf(values: readonly (string | number)[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `"${v}"` : String(v)));
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
}

export function enumSchema<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, mustBe(`one of ${oneOf(values)}`));
}
