// Every error class as a tool result (isError: the class, fields and rules, HTTP status, task
// id), never a JSON-RPC error; and the key in no message of a whole session, even with a
// service that echoes it everywhere it can.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MockService } from 'omnimedia/testing';
import { runInFakeTime } from '../helpers/clock.ts';
import { API_KEY, LONG, call, callAsTask, startHarness, submissions, textOf, trackedFetch, type Harness } from './helpers.ts';

const FAST = { pending: 200, image: 1_000, video: 2_000 };
let harness: Harness;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_800_000_000_000, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(async () => {
  await harness?.close();
  vi.useRealTimers();
});

// A generous budget of fake time: on a loaded machine a step of real work (a file read, a PNG
// made) may take longer than many steps of fake time; nothing here is timed by it.
const run = <T>(promise: Promise<T>, ms = 1_800_000) => runInFakeTime(promise, { ms, step: 500 });
const IMAGE = { model: 'omni-image', prompt: 'a fox' };
const errorOf = (result: { structuredContent?: unknown }) => (result.structuredContent as { error: Record<string, unknown> }).error;

describe('each error class is a tool error', () => {
  it.each([
    ['AuthenticationError', 401, (mock: MockService) => mock.forceStatus(401)],
    ['InsufficientBalanceError', 402, (mock: MockService) => mock.forceStatus(402)],
    ['PermissionDeniedError', 403, (mock: MockService) => mock.forceStatus(403)],
    ['RateLimitError', 429, (mock: MockService) => mock.rateLimitNext(10, { retryAfter: 1 })],
    ['ServiceUnavailableError', 503, (mock: MockService) => mock.unavailableNext(10, { retryAfter: 1 })],
    ['InternalServerError', 500, (mock: MockService) => mock.internalErrorAlways({ on: ['submissions'] })],
  ] as const)('%s (HTTP %i)', async (name, status, arrange) => {
    harness = await startHarness({ mock: { durations: FAST } });
    arrange(harness.mock);
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'generate_image', IMAGE));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(new RegExp(`^${name}: `));
    expect(textOf(result)).toContain(`HTTP status: ${status}`);
    expect(errorOf(result)).toMatchObject({ name, status });
  });

  it('BadRequestError: the service refused what the rules let through (400), with its reason', async () => {
    harness = await startHarness();
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'generate_video', { model: 'not-a-video-model', messages: [{ role: 'user', content: 'a fox' }] }));
    expect(textOf(result)).toMatch(/^BadRequestError: .*model must be omni_flash/);
    expect(textOf(result)).toContain('HTTP status: 400');
    expect(submissions(harness.mock)).toBe(1);
  });

  it('TaskFailedError: the failed task, its task_id and reason; a task call ends failed with it', async () => {
    harness = await startHarness({ mock: { durations: FAST } });
    const mcp = await harness.connect();
    harness.mock.failNextTask('provider_error');
    const result = await run(call(mcp, 'generate_image', IMAGE));
    const { task } = errorOf(result) as { task: { task_id: string; status: string } };
    expect(textOf(result)).toMatch(/^TaskFailedError: Task \S+ ended with status "failed" \(provider_error\)/);
    expect(textOf(result)).toContain(`task_id: ${task.task_id}`);
    expect(task.status).toBe('failed');

    harness.mock.failNextTask('provider_error');
    const created = await run(callAsTask(mcp, 'generate_image', IMAGE));
    const failed = await run(mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema, LONG));
    expect((await mcp.experimental.tasks.getTask(created.task.taskId)).status).toBe('failed');
    expect(textOf(failed as never)).toMatch(/^TaskFailedError: /);
  });

  it('NotFoundError: get_task of a task the service does not know', async () => {
    harness = await startHarness();
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'get_task', { task_id: 'task_nobody_knows' }));
    expect(textOf(result)).toMatch(/^NotFoundError: /);
    expect(textOf(result)).toContain('HTTP status: 404');
    expect(textOf(result)).toContain('task_id: task_nobody_knows');
  });

  it('WaitTimeoutError: a task call whose wait ran out ends failed, with the task_id and the advice to call get_task', async () => {
    harness = await startHarness({ mock: { durations: { pending: 1_000, image: 11 * 60_000 } } });
    const mcp = await harness.connect();
    const created = await run(callAsTask(mcp, 'generate_image', IMAGE));
    const result = await run(mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema, { timeout: 20 * 60_000 }), 15 * 60_000);
    expect(textOf(result as never)).toMatch(/^WaitTimeoutError: /);
    expect(textOf(result as never)).toMatch(/task_id: \S+\nThe task may still be running: call get_task/);
  });

  it('APIConnectionError and APITimeoutError: nothing answered', async () => {
    harness = await startHarness({ client: { fetch: async () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })) } });
    const refused = await run(call(await harness.connect(), 'generate_image', IMAGE));
    expect(textOf(refused)).toMatch(/^APIConnectionError: /);
    await harness.close();
    const silent = (_input: unknown, init?: RequestInit) => new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    harness = await startHarness({ client: { fetch: silent as typeof fetch, timeout: 5_000 } });
    const timedOut = await run(call(await harness.connect(), 'generate_image', IMAGE));
    expect(textOf(timedOut)).toMatch(/^APITimeoutError: /);
  });

  it('ValidationError: the fields and rules, nothing sent; protocol misuse stays a JSON-RPC error', async () => {
    harness = await startHarness();
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'generate_image', { model: '', prompt: 'p', quality: 'ultra' }));
    expect(textOf(result)).toBe(
      'ValidationError: Invalid images.generate params: model: must not be empty; quality: must be one of "low", "medium", "high" or "auto"\n' +
        'Fields: model: must not be empty; quality: must be one of "low", "medium", "high" or "auto"\nNothing was sent.',
    );
    await expect(run(mcp.request({ method: 'tasks/get', params: { taskId: 'no-such-task' } }, CallToolResultSchema))).rejects.toThrow(/Task not found/);
    expect(harness.mock.requests).toEqual([]);
  });
});

describe('protocol misuse is a JSON-RPC error', () => {
  it('an unknown tool: -32602 (not a tool result); a task-augmented call of a tool without task support: -32601', async () => {
    harness = await startHarness();
    const mcp = await harness.connect();
    await expect(run(call(mcp, 'no_such_tool', {}))).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('no_such_tool') });
    await expect(run(callAsTask(mcp, 'get_task', { task_id: 'task_1' }))).rejects.toMatchObject({ code: -32601 });
    await expect(run(callAsTask(mcp, 'upload_file', { url: 'https://x.test/a.png' }))).rejects.toMatchObject({ code: -32601 });
    expect(harness.mock.requests).toEqual([]);
  });
});

/** Every way the key could be written in a message: as is, percent-encoded, base64, JSON-escaped. */
function keyForms(): string[] {
  const base64 = Buffer.from(API_KEY).toString('base64');
  return [
    API_KEY,
    encodeURIComponent(API_KEY),
    base64,
    Buffer.from(API_KEY).toString('base64url'),
    base64.slice(4, -4), // inside a longer base64 text
    [...API_KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    API_KEY.replaceAll('/', '\\/'),
  ];
}

describe('the key', () => {
  it('is in no message of a whole session, with a service that echoes it in answers, errors and URLs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'omnimedia-mcp-key-'));
    await writeFile(join(dir, 'photo.png'), await readFile(fileURLToPath(new URL('../fixtures/tiny.png', import.meta.url))));
    let mock: MockService | undefined;
    // The service as a hostile echo: every JSON answer carries the key, plain and encoded, and
    // the Authorization header it was sent; result URLs carry it in their query.
    const echo: typeof fetch = async (input, init) => {
      const response = await mock!.fetch(input as Request, init);
      if (!response.headers.get('content-type')?.includes('json')) return response;
      const body = (await response.json()) as Record<string, unknown>;
      const auth = new Headers(init?.headers).get('authorization') ?? '';
      const data = Array.isArray(body.data) ? body.data.map((d: { url: string }) => ({ url: `${d.url}?k=${encodeURIComponent(API_KEY)}&raw=${API_KEY}` })) : undefined;
      const echoed = { ...body, echo: auth, note: `key ${API_KEY} / ${Buffer.from(API_KEY).toString('base64')}`, ...(data ? { data } : {}) };
      return new Response(JSON.stringify(echoed), { status: response.status, headers: response.headers });
    };
    harness = await startHarness({ mock: { durations: FAST }, client: { fetch: trackedFetch(echo) }, server: { allowedDirs: [dir] } });
    mock = harness.mock;
    const mcp = await harness.connect();
    await run(mcp.listTools(undefined, LONG));
    const made = await run(call(mcp, 'generate_image', IMAGE, { onprogress: () => {} }));
    expect(made.structuredContent).toMatchObject({ status: 'completed', note: expect.stringMatching(/^key \[redacted\] \/ \[redacted\]/) });
    const created = await run(callAsTask(mcp, 'generate_video', { prompt: 'a boat', seconds: 4 }, { onprogress: () => {} }));
    const video = await run(mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema, LONG));
    expect(video.isError).toBeFalsy();
    await run(mcp.experimental.tasks.getTask(created.task.taskId));
    await run(mcp.experimental.tasks.listTasks());
    await run(call(mcp, 'upload_file', { path: join(dir, 'photo.png') }));
    await run(call(mcp, 'edit_image', { ...IMAGE, image: join(dir, 'photo.png') }));
    await run(call(mcp, 'get_task', { task_id: (made.structuredContent as { task_id: string }).task_id }));
    harness.mock.forceStatus(401);
    expect((await run(call(mcp, 'generate_image', IMAGE))).isError).toBe(true);
    harness.mock.clearScenario().failNextTask('provider_error');
    expect((await run(call(mcp, 'generate_image', IMAGE))).isError).toBe(true);

    expect(harness.wire.length).toBeGreaterThan(20);
    const all = harness.wire.join('\n');
    expect(all).toContain('[redacted]');
    for (const form of keyForms()) expect(all.includes(form), form).toBe(false);
    await rm(dir, { recursive: true, force: true });
  });
});
