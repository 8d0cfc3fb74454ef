// The types a caller meets after `instanceof`: `err.lastTask` of a WaitTimeoutError is a
// TaskResult without writing `WaitTimeoutError<TaskResult>` (it was `any`). Checked by
// `npm run typecheck` (expectTypeOf is a type assertion) and run as an instance check.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { WaitTimeoutError, type TaskResult } from 'omnimedia';

describe('WaitTimeoutError', () => {
  it("types lastTask as the task (TaskResult) after instanceof", () => {
    const task: TaskResult = { task_id: 't1', status: 'processing' };
    const err: unknown = new WaitTimeoutError('t1', 1_000, task);
    if (!(err instanceof WaitTimeoutError)) throw new Error('not a WaitTimeoutError');
    expectTypeOf(err.lastTask).toEqualTypeOf<TaskResult | undefined>();
    // What the README's catch block reads, with no type argument:
    expect(err.lastTask?.status).toBe('processing');
  });
});
