import { filled, rule, text, type Rule } from './rules.ts';

export { MAX_IMAGE_PROMPT_LENGTH } from './constants.ts';

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

/**
 * A character `trim()` keeps: the complement of ECMAScript's white space and line terminators
 * (what `\s` matches in a JSON Schema `pattern`, an ECMA-262 regular expression).
 */
const NOT_BLANK = '\\S';

/**
 * A prompt that is not blank; `max` in code points when the spec gives a limit (JSON Schema's
 * `maxLength` counts code points too). Blank is all white space, as `trim()` sees it.
 */
export const prompt = (max?: number): Rule<string> =>
  text(
    'a string',
    (value) => {
      if (!value.trim()) return 'must not be empty';
      const length = countCodePoints(value);
      if (max !== undefined && length > max)
        return `must be at most ${max.toLocaleString('en-US')} characters (got ${length.toLocaleString('en-US')})`;
      return undefined;
    },
    { pattern: NOT_BLANK, ...(max !== undefined ? { maxLength: max } : {}) },
  );

export const model: Rule<string> = filled();

/** The service POSTs the result to this address, so it must be absolute http(s). */
export const callbackUrl: Rule<string> = text('a string', (value) =>
  URL.canParse(value) && /^https?:$/.test(new URL(value).protocol) ? undefined : 'must be an absolute http(s) URL',
);

/** `a`, `b`, ... as a readable message fragment: `"a", "b" or "c"`. */
export function oneOf(values: readonly (string | number)[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `"${v}"` : String(v)));
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
}

/** One of `values`, as given. */
export const enumOf = <const T extends readonly string[]>(values: T): Rule<T[number]> =>
  rule((value) => (values.includes(value as string) ? undefined : `must be one of ${oneOf(values)}`), undefined, { type: 'string', enum: values });
