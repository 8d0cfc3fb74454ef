/**
 * Text from outside (a service's strings, a server's error body, a file name) made safe to write
 * to a terminal: every character a terminal would act on instead of showing is shown escaped,
 * never interpreted. That is every C0 control (ESC opens window-title, screen-clear and colour
 * sequences; CR rewrites the line; LF would forge one), DEL, every C1 control (U+009B is a CSI
 * to some terminals), and the characters that reorder or break what is shown: bidi embeddings,
 * overrides, isolates and marks ("Trojan Source"), the line and paragraph separators.
 * Shown as `\n`, `\r`, `\t`, `\xHH` below U+0100, `\u{HHHH}` above. Printable text of any
 * script is left alone, and so is `\`: the text is for a person; `--json` has the exact value.
 */
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  return NAMED[char] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`);
}

/**
 * One line for a terminal: every control and reordering character in `text`, line breaks
 * included, shown escaped. Idempotent.
 *
 * @example
 * ```ts
 * terminalText('done\x1b]0;pwned\x07'); // 'done\\x1b]0;pwned\\x07'
 * ```
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** Several lines of our own making (`\n` between them) for a terminal: each line as {@link terminalText}. */
export function terminalLines(text: string): string {
  return text.split('\n').map(terminalText).join('\n');
}

/**
 * `JSON.stringify(value, null, 2)` safe for a terminal: the same JSON, with the characters
 * `JSON.stringify` leaves raw (DEL, C1, bidi, separators; it escapes C0 itself) as `\uHHHH`,
 * which only a JSON string can hold, so the document parses to the same value.
 */
export function terminalJson(value: unknown, indent: 0 | 2 = 2): string {
  return JSON.stringify(value, null, indent || undefined).replace(UNSAFE, (char) => (char === '\n' ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
