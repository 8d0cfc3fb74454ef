import { describe, expect, it } from 'vitest';
import type { ValidationIssue } from '../../src/errors.ts';
import { countCodePoints, oneOf, prompt } from '../../src/schemas/fields.ts';
import { checkInput } from '../../src/validation/parse.ts';

describe('countCodePoints', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['🦊', 1],
    ['a🦊b', 3],
    ['é', 1], // precomposed
    ['e\u0301', 2], // e + combining accent: two code points, as the limit counts them
    ['\ud83e', 1], // a lone high surrogate is one code point
    ['\udd8a\ud83e', 2], // reversed pair: not a pair
  ])('%j has %i code points', (text, count) => {
    expect(countCodePoints(text)).toBe(count);
    expect(countCodePoints(text)).toBe([...text].length);
  });
});

describe('the prompt rule', () => {
  const rule = prompt(4000);
  const issues = (value: unknown) => {
    const found: ValidationIssue[] = [];
    checkInput(rule, value, found);
    return found.map((i) => i.message);
  };

  it('counts code points against the limit', () => {
    expect(issues('🦊'.repeat(4000))).toEqual([]);
    expect(issues('🦊'.repeat(4001))).toEqual(['must be at most 4,000 characters (got 4,001)']);
    expect(issues('x'.repeat(4000))).toEqual([]);
  });

  it('names missing, non-string and blank prompts', () => {
    expect(issues(undefined)).toEqual(['is required']);
    expect(issues(42)).toEqual(['must be a string']);
    expect(issues(' \n')).toEqual(['must not be empty']);
  });
});

describe('oneOf', () => {
  it('reads as a list', () => {
    expect(oneOf(['a'])).toBe('"a"');
    expect(oneOf(['a', 'b'])).toBe('"a" or "b"');
    expect(oneOf([4, 6, 8])).toBe('4, 6 or 8');
  });
});
