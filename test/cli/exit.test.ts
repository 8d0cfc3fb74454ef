import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  InternalServerError,
  OmniMediaError,
  RateLimitError,
  TaskFailedError,
  ValidationError,
  WaitTimeoutError,
} from '../../src/index.ts';
import { UsageError } from '../../src/cli/args.ts';
import { EXIT, Interrupted, errorJson, errorText, exitCodeFor } from '../../src/cli/exit.ts';

describe('cli exit codes', () => {
  it.each([
    [new UsageError('x'), EXIT.usage],
    [new ValidationError([{ path: 'size', message: 'bad' }]), EXIT.usage],
    [new OmniMediaError('new OmniMedia: baseURL must be an absolute http(s) URL'), EXIT.usage],
    [new TaskFailedError({ task_id: 't', status: 'failed' }, 'provider_timeout'), EXIT.taskFailed],
    [new WaitTimeoutError('t', 10, undefined), EXIT.timeout],
    [new AuthenticationError('no key'), EXIT.api],
    [new RateLimitError('slow down', { status: 429, retryAfter: 90 }), EXIT.api],
    [new InternalServerError('boom', { status: 500 }), EXIT.api],
    [new APIConnectionError('refused'), EXIT.api],
    // A request that timed out is the service's problem (3), not the wait's deadline (4).
    [new APITimeoutError('slow'), EXIT.api],
    [new Interrupted('t'), EXIT.interrupted],
    [new TypeError('bug'), EXIT.internal],
  ])('%s → %i', (error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });

  it('a wait timeout carries the last task seen in JSON', () => {
    const json = errorJson(new WaitTimeoutError('t', 10, { task_id: 't', status: 'processing' }));
    expect(json).toEqual({
      error: expect.objectContaining({ type: 'WaitTimeoutError', task_id: 't', exit_code: 4, last_task: { task_id: 't', status: 'processing' } }),
    });
  });

  it('an unexpected error is reported as a bug with its stack', () => {
    expect(errorText(new TypeError('oops'))).toMatch(/^internal error \(please report it\): TypeError: oops/);
  });
});
