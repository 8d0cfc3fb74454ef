// An error of a wait names the call the caller made (issue 26: `tasks.wait('x')` said
// `tasks.retrieve(x)`, a call the caller never wrote), and keeps the task id.
import { afterAll, describe, expect, it } from 'vitest';
import { NotFoundError, OmniMedia } from 'omnimedia';
import { startMockServer } from 'omnimedia/testing';

const server = await startMockServer();
afterAll(() => server.close());
const client = new OmniMedia({ apiKey: 'sk-test', baseURL: server.url });

const failure = (work: Promise<unknown>) => work.then(() => expect.fail('resolved'), (error: unknown) => error);

describe('the errors of a wait', () => {
  it('name tasks.wait and tasks.watch, not the query tasks.retrieve, and keep the task id', async () => {
    const waited = await failure(client.tasks.wait('task_missing'));
    expect(waited).toBeInstanceOf(NotFoundError);
    expect((waited as NotFoundError).message).toMatch(/^tasks\.wait\(task_missing\)/);
    expect((waited as NotFoundError).taskId).toBe('task_missing');

    const watched = await failure((async () => {
      for await (const task of client.tasks.watch('task_missing')) void task;
    })());
    expect((watched as Error).message).toMatch(/^tasks\.watch\(task_missing\)/);

    const retrieved = await failure(client.tasks.retrieve('task_missing'));
    expect((retrieved as Error).message).toMatch(/^tasks\.retrieve\(task_missing\)/);
  });
});
