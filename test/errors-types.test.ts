// The types a caller meets after `instanceof`: `err.lastTask` of a WaitTimeoutError and
// `err.task` of a TaskFailedError are a TaskResult without a type argument (both were `any`). Checked by
// `npm run typecheck` (expectTypeOf is a type assertion) and run as an instance check.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { TaskFailedError, WaitTimeoutError, type TaskResult } from 'omnimedia';
import type { TaskAttempt } from 'omnimedia/resources';

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

describe('TaskFailedError', () => {
  it('types task as the task (TaskResult) and attempts as its attempts after instanceof', () => {
    const task: TaskResult = { task_id: 't2', status: 'failed', attempts: [{ attempt_no: 1, status: 'failed', fail_reason: 'provider_timeout' }] };
    const err: unknown = new TaskFailedError(task);
    if (!(err instanceof TaskFailedError)) throw new Error('not a TaskFailedError');
    expectTypeOf(err.task).toEqualTypeOf<TaskResult>();
    expectTypeOf(err.attempts).toEqualTypeOf<readonly TaskAttempt[]>();
    expect(err.task.task_id).toBe('t2');
    expect(err.attempts[0]?.fail_reason).toBe('provider_timeout');
  });
});
