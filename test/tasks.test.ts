// omnimedia/tasks: TasksClient is client.tasks without the rest of the client: the same
// retrieve, wait and watch (same options, errors and cadence), and never a key.
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotFoundError, TasksClient, ValidationError, WaitTimeoutError } from '../src/tasks.ts';
import { BASE_URL, useMsw } from './helpers/msw.ts';

const server = useMsw();
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

const TASKS = `${BASE_URL}/v1/tasks/:id`;

describe('TasksClient', () => {
  it('retrieve, wait and watch follow a task, with no Authorization header even when OMNIMEDIA_API_KEY is set', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', 'sk-must-not-be-sent');
    const statuses = ['pending', 'processing', 'completed'];
    let queries = 0;
    const authorization: (string | null)[] = [];
    server.use(
      http.get(TASKS, ({ request, params }) => {
        authorization.push(request.headers.get('authorization'));
        const status = statuses[Math.min(queries++, statuses.length - 1)];
        return HttpResponse.json({ task_id: params.id, status, data: status === 'completed' ? [{ url: 'https://cdn.test/a.png' }] : undefined });
      }),
    );
    const tasks = new TasksClient({ baseURL: BASE_URL });
    expect((await tasks.retrieve('t1')).status).toBe('pending');
    const done = await tasks.wait('t1', { initialDelay: 0, interval: 1, maxInterval: 1 });
    expect(done.data?.[0]?.url).toBe('https://cdn.test/a.png');
    const watched: string[] = [];
    for await (const task of tasks.watch('t1', { initialDelay: 0 })) watched.push(task.status);
    expect(watched).toEqual(['completed']);
    expect(authorization.every((value) => value === null)).toBe(true);
  });

  it('has the same checks and errors as client.tasks', async () => {
    server.use(http.get(TASKS, () => HttpResponse.json({ error: 'no such task' }, { status: 404 })));
    const tasks = new TasksClient({ baseURL: BASE_URL, maxRetries: 0 });
    await expect(tasks.retrieve('\uD800')).rejects.toBeInstanceOf(ValidationError);
    await expect(tasks.retrieve('t1', { timeout: -1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(tasks.wait('t1', { initialDelay: 0 })).rejects.toBeInstanceOf(NotFoundError);
    expect(() => new TasksClient({ baseURL: 'ftp://x' })).toThrow(ValidationError);
    expect(() => new TasksClient({ baseURL: BASE_URL, maxPollsPerSecond: 0 })).toThrow(/maxPollsPerSecond/);
  });

  it('ends a wait at its deadline', async () => {
    server.use(http.get(TASKS, ({ params }) => HttpResponse.json({ task_id: params.id, status: 'processing' })));
    const error = await new TasksClient({ baseURL: BASE_URL }).wait('t1', { timeout: 50, initialDelay: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
  });

  it('in a page behind omnimedia/proxy: proxyURL, relative to the page, as new OmniMedia takes it (was ignored, and the error said to pass it)', async () => {
    vi.stubGlobal('window', globalThis);
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { href: 'https://app.example.com/studio/new?draft=1' });
    const seen: { url: string; credentials: RequestCredentials | undefined }[] = [];
    const tasks = new TasksClient({
      proxyURL: '/api/omnimedia',
      fetch: async (input, init) => {
        seen.push({ url: String(input), credentials: init?.credentials });
        return Response.json({ task_id: 't1', status: 'completed' });
      },
    });
    await tasks.retrieve('t1');
    expect(seen).toEqual([{ url: 'https://app.example.com/api/omnimedia/v1/tasks/t1', credentials: 'same-origin' }]);
    expect(() => new TasksClient({ proxyURL: '/api/omnimedia', baseURL: BASE_URL })).toThrow(
      expect.objectContaining({ issues: [{ path: 'baseURL', message: 'not with proxyURL: the proxy on your server holds it' }] }),
    );
  });

  it('with neither baseURL nor proxyURL: the error names baseURL; an empty proxyURL is named as proxyURL', () => {
    vi.stubEnv('OMNIMEDIA_BASE_URL', '');
    expect(() => new TasksClient()).toThrow(/baseURL: is required: pass baseURL \(in a page: proxyURL\)/);
    expect(() => new TasksClient({ proxyURL: '' })).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'proxyURL' })] }));
  });
});
