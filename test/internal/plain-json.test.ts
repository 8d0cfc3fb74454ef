// parsesAsPlainData: an answer's JSON used as parsed only when its text shows that
// toPlainData's copy would be the same value (the copy of every task answer was a tenth of a
// task query's cost against raw fetch, issue 40). It may say "copy" too often, never too seldom.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ARRAY_ITEMS, MAX_DEPTH, toPlainData } from '../../src/internal/plain-data.ts';
import { parsesAsPlainData } from '../../src/internal/plain-json.ts';
import { parseJsonAnswer } from '../../src/transport/json-bodies.ts';
import { APIError } from '../../src/errors.ts';

const TASK =
  '{"task_id":"task_8e2f","status":"completed","created_at":1700000000,"elapsed_s":1.5,"data":[{"url":"https://files.example/out-1e3.png"}],"attempts":[{"attempt_no":1}]}';

/** What toPlainData makes of JSON.parse(text), or the problem it refuses it with. */
function copied(text: string): unknown {
  try {
    return { value: toPlainData(JSON.parse(text)) };
  } catch (error) {
    return { refused: (error as { problem?: string }).problem };
  }
}

describe('parsesAsPlainData', () => {
  it('passes a task answer (no copy made on the hot path)', () => {
    expect(parsesAsPlainData(TASK)).toBe(true);
    expect(JSON.parse(TASK)).toEqual(toPlainData(JSON.parse(TASK)));
  });

  it('sends to the copy every text whose parse the copy would change or refuse', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const cases = [
      '{"a":{"__proto__":{"polluted":true}}}', // dropped by the copy
      '{"\\u005f_proto__":{"polluted":true}}', // the same key, spelled with escapes
      '{"size":1e400}', // Infinity
      '[1,-2.5E+999]',
      '1e400',
      `{"n":${'9'.repeat(400)}}`,
      nested(MAX_DEPTH + 2), // too deep
      `[${Array.from({ length: MAX_ARRAY_ITEMS + 1 }, () => '0').join(',')}]`, // too many items
    ];
    for (const text of cases) {
      expect(parsesAsPlainData(text), text.slice(0, 40)).toBe(false);
      const parsed: unknown = JSON.parse(text);
      expect(copied(text), text.slice(0, 40)).not.toEqual({ value: parsed });
    }
    // At the limit itself the copy changes nothing, and the check may pass it.
    expect(copied(nested(MAX_DEPTH))).toEqual({ value: JSON.parse(nested(MAX_DEPTH)) });
  });

  it('whenever it passes a text, the copy is the parse itself, unrefused (any JSON, any keys)', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'task_id'));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(key, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (input) => {
        const text = JSON.stringify(input);
        if (text === undefined || !parsesAsPlainData(text)) return;
        expect(copied(text)).toEqual({ value: JSON.parse(text) });
      }),
      { numRuns: 500 },
    );
  });
});

describe('an answer read through parseJsonAnswer', () => {
  const meta = { status: 200, headers: new Headers(), requestId: undefined, warnOnce: () => {} };
  const request = { method: 'GET', path: 'v1/tasks/t', auth: false, retry: 'idempotent', what: 'tasks.retrieve(t)', taskId: 't' } as const;
  const redactor = { text: (s: string) => s, data: (d: unknown) => d } as never;

  it('keeps refusing what the copy refuses, and drops __proto__ keys', () => {
    expect(() => parseJsonAnswer('{"total_cost":1e400}', meta, request, redactor)).toThrow(APIError);
    expect(() => parseJsonAnswer('{"total_cost":1e400}', meta, request, redactor)).toThrow(/JSON that holds the number Infinity/);
    const read = parseJsonAnswer('{"task_id":"t","extra":{"__proto__":{"x":1}}}', meta, request, redactor) as { extra: object };
    expect(Object.hasOwn(read.extra, '__proto__')).toBe(false);
    expect(parseJsonAnswer(TASK, meta, request, redactor)).toEqual(JSON.parse(TASK));
  });
});
