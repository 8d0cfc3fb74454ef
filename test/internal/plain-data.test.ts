// checkParsedJson reads an answer's JSON where JSON.parse left it: it must give what the copying
// reader (toPlainData) gives for the same parsed value, value, refusal, message and path alike.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkParsedJson, MAX_ARRAY_ITEMS, MAX_DEPTH, PlainDataError, toPlainData } from '../../src/internal/plain-data.ts';

function outcome(read: () => unknown): unknown {
  try {
    return { value: read() };
  } catch (error) {
    if (!(error instanceof PlainDataError)) throw error;
    return { problem: error.problem, message: error.message, path: error.path };
  }
}

const same = (text: string) => expect(outcome(() => checkParsedJson(JSON.parse(text)))).toEqual(outcome(() => toPlainData(JSON.parse(text))));
const nested = (depth: number) => `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;

describe('checkParsedJson', () => {
  it('gives what toPlainData gives, for any JSON', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      same(JSON.stringify(value));
    }), { numRuns: 300 });
  });

  it('refuses as toPlainData does: too deep, too many items, numbers JSON cannot carry, with their paths', () => {
    for (const text of [
      nested(MAX_DEPTH),
      nested(MAX_DEPTH / 2 + 1),
      `{"data":[{"url":"u"},{"n":${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}}]}`,
      `{"attempts":[${Array.from({ length: MAX_ARRAY_ITEMS + 1 }, () => '0').join(',')}]}`,
      `{"data":[{"cost":1e999}]}`,
      '-1e999',
    ])
      same(text);
    expect(outcome(() => checkParsedJson(JSON.parse(`{"data":[{"cost":1e999}]}`)))).toMatchObject({ problem: 'not_data', path: 'data[0].cost' });
  });

  it('drops __proto__ keys, at any depth, and changes no prototype', () => {
    const read = checkParsedJson(JSON.parse('{"__proto__":{"polluted":true},"task_id":"t","data":[{"__proto__":{"x":1},"url":"u"}]}')) as Record<string, unknown>;
    expect(read).toEqual({ task_id: 't', data: [{ url: 'u' }] });
    expect(Object.hasOwn(read, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    same('{"__proto__":{"polluted":true},"a":{"__proto__":1}}');
  });
});
