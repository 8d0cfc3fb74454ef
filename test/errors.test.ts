// TaskFailedError tells why a task failed by itself: whoever builds one from a failed task (the
// poller, the CLI, the AI SDK provider) gets the same failReason without re-deriving it.
import { describe, expect, it } from 'vitest';
import { OmniMediaError, TaskFailedError } from 'omnimedia';

describe('TaskFailedError', () => {
  it("takes the task's own fail_reason when no reason is given", () => {
    const error = new TaskFailedError({ task_id: 't1', status: 'failed', fail_reason: 'content_policy' });
    expect(error).toBeInstanceOf(OmniMediaError);
    expect(error.failReason).toBe('content_policy');
    expect(error.taskId).toBe('t1');
    expect(error.message).toBe('Task t1 ended with status "failed" (content_policy)');
  });

  it("else the last failed attempt's", () => {
    const task = {
      task_id: 't2',
      status: 'failed',
      attempts: [{ fail_reason: 'provider_timeout' }, { status: 'failed' }, { fail_reason: 'provider_error' }, {}],
    };
    const error = new TaskFailedError(task);
    expect(error.failReason).toBe('provider_error');
    expect(error.message).toBe('Task t2 ended with status "failed" (provider_error) after 4 attempts');
  });

  it('an explicit reason wins; none at all leaves it undefined', () => {
    expect(new TaskFailedError({ task_id: 't3', status: 'failed', fail_reason: 'a' }, 'b').failReason).toBe('b');
    expect(new TaskFailedError({ task_id: 't4', status: 'expired' }).failReason).toBeUndefined();
  });
});
