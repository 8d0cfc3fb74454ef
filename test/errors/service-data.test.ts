// An error keeps the service's data (a task) without URL credentials: its fields, its
// `util.inspect` form and its JSON hold no password (issue 39: `files.download` on a result URL
// with `user:pass@` kept it in `util.inspect(error)`).
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OmniMedia, TaskFailedError, UnusableResultError, WaitTimeoutError, type TaskResult } from 'omnimedia';

const PASSWORD = 'hunter2-very-secret';
const withCredentials = (status: string): TaskResult =>
  ({ task_id: 'task_creds', status, data: [{ url: `https://user:${PASSWORD}@cdn.example/x.png?sig=kept` }] }) as TaskResult;

/** Every form of an error a log may hold: the message, the cause chain, the inspected form, its JSON. */
const forms = (error: unknown) => [String(error), inspect(error, { depth: 20 }), JSON.stringify(error)].join('\n');

describe('an error keeps no URL password', () => {
  it('files.download on a result URL with user:password@: message, cause chain, inspected form, JSON', async () => {
    const client = new OmniMedia({ apiKey: 'sk-service-data-test', baseURL: 'http://127.0.0.1:9' });
    const error = await client.files.download(withCredentials('completed')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnusableResultError);
    expect(forms(error)).not.toContain(PASSWORD);
    // The rest of the task stays (the query too: data, not a log line).
    expect((error as UnusableResultError).task.data?.[0]?.url).toBe('https://[redacted]@cdn.example/x.png?sig=kept');
  });

  it('a failed task and a wait\u2019s last task', () => {
    expect(forms(new TaskFailedError(withCredentials('failed')))).not.toContain(PASSWORD);
    expect(forms(new WaitTimeoutError('task_creds', 1_000, withCredentials('processing')))).not.toContain(PASSWORD);
  });

  it('a task with nothing to remove is kept as it is', () => {
    const task = { task_id: 'task_plain', status: 'failed' } as TaskResult;
    expect(new TaskFailedError(task).task).toBe(task);
  });
});

describe('a task given by the caller whose status is no string', () => {
  // fast-check's seed -810168032 (files.property.test.ts): `{ toString: 0 }` as the status made
  // the error's own message throw a raw TypeError ("Cannot convert object to primitive value").
  it.each([
    ['{ toString: 0 }', { toString: 0 }],
    ['a throwing toString', { toString: () => { throw new Error('no'); } }],
    ['no prototype', Object.create(null) as object],
  ])('files.download rejects with UnusableResultError, the status shown by its kind (%s)', async (_name, status) => {
    const client = new OmniMedia({ apiKey: 'sk-service-data-test', baseURL: 'http://127.0.0.1:9' });
    const task = { task_id: 'task_odd', status, data: [{ url: 'not a url' }] } as unknown as TaskResult;
    const error = await client.files.download(task).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnusableResultError);
    expect((error as Error).message).toMatch(/^Task task_odd \(status a object\) has no usable result: data\[0\]\.url/);
  });
});
