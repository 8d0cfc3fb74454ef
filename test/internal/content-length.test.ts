import { describe, expect, it } from 'vitest';
import { contentLength } from '../../src/internal/content-length.ts';
import { findInCauses } from '../../src/internal/cause-chain.ts';

describe('contentLength', () => {
  it.each([
    ['123', undefined, 123],
    ['0', undefined, 0],
    [['42', '43'], undefined, 42],
    ['12abc', undefined, undefined],
    ['-1', undefined, undefined],
    [' 1', undefined, undefined],
    [null, undefined, undefined],
    [undefined, undefined, undefined],
    ['123', 'gzip', undefined],
  ] as const)('%j (encoding %j) → %j', (value, encoding, expected) => {
    expect(contentLength(value, encoding)).toBe(expected);
  });
});

describe('findInCauses', () => {
  it('finds the first match down the chain, and stops on a cycle', () => {
    const socket = Object.assign(new Error('socket'), { code: 'ECONNRESET' });
    const fetchFailed = new TypeError('fetch failed', { cause: socket });
    const wrapped = new Error('network', { cause: fetchFailed });
    expect(findInCauses(wrapped, (l) => (typeof l.code === 'string' ? l.code : undefined))).toBe('ECONNRESET');
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(findInCauses(loop, () => undefined)).toBeUndefined();
    expect(findInCauses('not an error', () => 1)).toBeUndefined();
  });
});
