/**
 * Whether an answer's JSON needs `toPlainData`'s copy at all, read from its text: the Node
 * builds use a task's answer as parsed (the copy was 14 µs of a task query's 150 against raw
 * fetch, bench overhead, issue 40); a page's build copies every answer (plain-json.browser.ts).
 */
import { MAX_ARRAY_ITEMS, MAX_DEPTH } from './plain-data.ts';

/**
 * What in an answer's text could make its parse other than plain data: a `__proto__` (or an
 * escape, which could spell one), a number token with an exponent (after the start, a `:`, `,`
 * or `[`: an id such as `task_8e2f` in a string is none) or of 300 digits (`1e400` parses as
 * `Infinity`), more than `MAX_DEPTH` brackets in all. One native scan of the text.
 */
const COPY_NEEDED = new RegExp(String.raw`__proto__|\\u|(?:^|[:,[])\s*-?\d+(?:\.\d+)?[eE]|\d{300}|^(?:[^[{]*[[{]){${MAX_DEPTH + 1}}`);

/**
 * Whether `JSON.parse(text)` is plain data as `toPlainData` would copy it, unchanged, read from
 * the text alone (`COPY_NEEDED`, and too short for an array past `MAX_ARRAY_ITEMS`).
 * Conservative: `false` says only "copy it to know" (a `__proto__` in a string value, say).
 * A task's answer passes.
 */
export function parsesAsPlainData(text: string): boolean {
  return text.length <= 2 * MAX_ARRAY_ITEMS && !COPY_NEEDED.test(text);
}
