import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalJson, terminalLines, terminalText } from '../../src/cli/terminal-text.ts';

// What a terminal would act on instead of showing: C0 and C1 controls, DEL, and the characters
// that reorder or break what is shown (bidi embeddings, overrides, isolates, marks; line and
// paragraph separators).
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Text of printable runs and unsafe characters, in any order. */
const text = fc
  .array(fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('\x1b', '\x07', '\n', '\r', '\t', '\x00', '\x7f', '\x9b', '\u202e', '\u2066', '\u2028', '\\', 'x1b')), { maxLength: 20 })
  .map((parts) => parts.join(''));

describe('terminalText', () => {
  it.each([
    ['a window title', '\x1b]0;pwned\x07', '\\x1b]0;pwned\\x07'],
    ['a screen clear', '\x1b[2J\x1b[H', '\\x1b[2J\\x1b[H'],
    ['a carriage return that rewrites the line', 'ok\rFAILED', 'ok\\rFAILED'],
    ['a line break and a tab', 'a\nb\tc', 'a\\nb\\tc'],
    ['an 8-bit CSI (C1)', '\x9b31m', '\\x9b31m'],
    ['DEL and NUL', 'a\x7fb\x00', 'a\\x7fb\\x00'],
    ['a right-to-left override', 'invoice_\u202Egnp.exe', 'invoice_\\u{202e}gnp.exe'],
    ['isolates and marks', '\u2066x\u2069\u200f\u061c', '\\u{2066}x\\u{2069}\\u{200f}\\u{61c}'],
    ['a line separator', 'a\u2028b', 'a\\u{2028}b'],
  ])('%s is shown escaped', (_, text, shown) => {
    expect(terminalText(text)).toBe(shown);
  });

  it('leaves printable text of every script alone', () => {
    const text = 'task_1 · completed · 3.0s ✔ 東京 مرحبا 🦊 é';
    expect(terminalText(text)).toBe(text);
  });

  it('lets no unsafe code point through, of all 1,114,112, and changes no other', () => {
    const passed: number[] = [];
    const changed: number[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue; // lone surrogates: not characters
      const char = String.fromCodePoint(code);
      const shown = terminalText(char);
      if (UNSAFE.test(char) ? UNSAFE.test(shown) : shown !== char) (UNSAFE.test(char) ? passed : changed).push(code);
    }
    expect(passed).toEqual([]);
    expect(changed).toEqual([]);
  });

  it('is idempotent on any text (escaped output holds nothing unsafe)', () => {
    fc.assert(
      fc.property(text, (text) => {
        const shown = terminalText(text);
        expect(shown).not.toMatch(UNSAFE);
        expect(terminalText(shown)).toBe(shown);
      }),
      { numRuns: 1_000, interruptAfterTimeLimit: 5_000 },
    );
  });
});

describe('terminalLines', () => {
  it('keeps the line breaks of our own text, escapes the rest of each line', () => {
    expect(terminalLines('status  \x1b[2Jdone\nurl     x\r')).toBe('status  \\x1b[2Jdone\nurl     x\\r');
  });
});

describe('terminalJson', () => {
  it('is the same JSON, with C1, DEL and bidi characters as \\u escapes (JSON.stringify leaves them raw)', () => {
    const value = { status: '\x9b2J\u202Edone\x7f', nested: ['\x1b]0;t\x07'] };
    const text = terminalJson(value);
    expect(text.replace(/\n/g, '')).not.toMatch(UNSAFE);
    expect(text).toContain('\\u009b2J\\u202edone\\u007f');
    expect(JSON.parse(text)).toEqual(value);
  });
});
