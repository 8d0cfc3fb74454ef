// MCP tasks over Streamable HTTP, in fake time (the mock's clock, the client's waits and the MCP
// SDK's timers alike): a 30 s video followed through tasks/get and tasks/result with as many
// task queries as `.wait()` makes; a client without task support getting the running task
// after waitMs, then its end through get_task; tasks/list and tasks/cancel.
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia, type TaskResult } from 'omnimedia';
import { runInFakeTime } from '../helpers/clock.ts';
import { API_KEY, LONG, call, callAsTask, requestsTo, startHarness, submissions, textOf, type Harness } from './helpers.ts';

const T0 = 1_800_000_000_000;
// A 30 s task: 1 s pending, one 29 s attempt.
const THIRTY_SECONDS = { pending: 1_000, video: 29_000 };
let harness: Harness;

beforeEach(() => {
  vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter: the two waits keep the same cadence
});
afterEach(async () => {
  await harness?.close();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a task-augmented call', () => {
  it('answers a CreateTaskResult at once; tasks/get and tasks/result follow the service task with as many queries as .wait()', async () => {
    harness = await startHarness({ mock: { durations: THIRTY_SECONDS } });
    // The same task waited for by the SDK alone, on a fresh client of the same mock.
    const direct = new OmniMedia({ apiKey: API_KEY, baseURL: harness.mock.baseURL, fetch: harness.mock.fetch, logLevel: 'off' });
    const waited = await runInFakeTime(direct.videos.generate({ prompt: 'a paper boat', seconds: 4 }).wait(), { ms: 600_000, step: 250 });
    const directQueries = requestsTo(harness.mock, 'GET', `/v1/tasks/${waited.task_id}`);

    const mcp = await harness.connect();
    const progress: string[] = [];
    const created = await runInFakeTime(
      callAsTask(mcp, 'generate_video', { prompt: 'a paper boat', seconds: 4 }, { onprogress: ({ message }) => progress.push(String(message)) }),
    );
    expect(created.task).toMatchObject({ status: 'working', pollInterval: 2000 });
    const taskId = created.task.taskId;
    const statuses: string[] = [];
    const followed = (async () => {
      for (;;) {
        const task = await mcp.experimental.tasks.getTask(taskId, LONG);
        statuses.push(`${task.status}${task.statusMessage ? ` ${task.statusMessage}` : ''}`);
        if (task.status !== 'working') return mcp.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, LONG);
        await sleep(task.pollInterval ?? 1000);
      }
    })();
    const result = (await runInFakeTime(followed, { ms: 600_000, step: 250 })) as unknown as { structuredContent: TaskResult; isError?: boolean };
    const task = result.structuredContent;
    expect(task).toMatchObject({ status: 'completed', data: [{ url: expect.stringMatching(/\.mp4$/) }] });
    expect(result.isError).toBeFalsy();
    // The service task_id, visible to the agent in the status message while it runs.
    expect(statuses).toContain(`working task_id ${task.task_id}: pending`);
    expect(statuses.at(-1)).toMatch(/^completed/);
    expect(progress).toContain(`task_id ${task.task_id}: completed`);
    const mcpQueries = requestsTo(harness.mock, 'GET', `/v1/tasks/${task.task_id}`);
    expect(directQueries).toBeGreaterThan(2);
    expect(Math.abs(mcpQueries - directQueries)).toBeLessThanOrEqual(1);
    expect(submissions(harness.mock)).toBe(2); // one each

    const { tasks } = await mcp.experimental.tasks.listTasks();
    expect(tasks.map((t) => [t.taskId, t.status])).toEqual([[taskId, 'completed']]);
  });

  it('invalid input: a task that ends failed at once with the tool error as its result, nothing sent', async () => {
    harness = await startHarness();
    const mcp = await harness.connect();
    const created = await runInFakeTime(callAsTask(mcp, 'generate_image', { model: 'omni-image', prompt: 'a fox', size: '1000x1000', n: 9 }));
    const result = await runInFakeTime(mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema, LONG));
    expect((await mcp.experimental.tasks.getTask(created.task.taskId)).status).toBe('failed');
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toContain('size: both sides must be multiples of 16 (got 1000x1000); n: must be an integer from 1 to 4');
    expect(harness.mock.requests).toEqual([]);
  });

  it('tasks/cancel stops following the task (the service task cannot be cancelled: it runs on)', async () => {
    harness = await startHarness({ mock: { durations: THIRTY_SECONDS } });
    const mcp = await harness.connect();
    const created = await runInFakeTime(callAsTask(mcp, 'generate_video', { prompt: 'a fox' }));
    await runInFakeTime(sleep(5_000));
    const cancelled = await runInFakeTime(mcp.experimental.tasks.cancelTask(created.task.taskId));
    expect(cancelled.status).toBe('cancelled');
    const before = harness.mock.requests.length;
    await runInFakeTime(sleep(60_000), { ms: 61_000 });
    expect(harness.mock.requests.length).toBe(before); // no more queries
    expect((await mcp.experimental.tasks.getTask(created.task.taskId)).status).toBe('cancelled');
  });

  it('a closed session stops following its tasks (the service tasks run on)', async () => {
    harness = await startHarness({ mock: { durations: THIRTY_SECONDS } });
    const mcp = await harness.connect();
    await runInFakeTime(callAsTask(mcp, 'generate_video', { prompt: 'a fox' }));
    await runInFakeTime(sleep(5_000));
    // The client ends its session (DELETE), as a client leaving does.
    await runInFakeTime((mcp.transport as StreamableHTTPClientTransport).terminateSession());
    const before = harness.mock.requests.length;
    await runInFakeTime(sleep(60_000), { ms: 61_000 });
    expect(harness.mock.requests.length).toBe(before);
  });
});

describe('a call without task support', () => {
  it('waits up to waitMs with progress, returns the running task and its task_id, and get_task follows it: one submission', async () => {
    harness = await startHarness({ mock: { durations: { pending: 1_000, video: 89_000 } }, server: { waitMs: 50_000 } });
    const mcp = await harness.connect();
    const progress: string[] = [];
    const started = Date.now();
    const running = await runInFakeTime(
      call(mcp, 'generate_video', { prompt: 'a long boat ride' }, { onprogress: ({ message }) => progress.push(String(message)) }),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(50_000);
    expect(Date.now() - started).toBeLessThan(55_000);
    const task = running.structuredContent as unknown as TaskResult;
    expect(running.isError).toBeFalsy();
    expect(task.status).toBe('processing');
    expect(textOf(running)).toContain(`Call get_task with {"task_id": "${task.task_id}"}`);
    expect(progress).toEqual([`task_id ${task.task_id}: pending`, `task_id ${task.task_id}: processing`]);

    const finished = await runInFakeTime(call(mcp, 'get_task', { task_id: task.task_id }));
    expect(finished.structuredContent).toMatchObject({ task_id: task.task_id, status: 'completed' });
    expect(submissions(harness.mock)).toBe(1);
    // The call's own MCP task is nobody's business: tasks/list shows none.
    expect((await mcp.experimental.tasks.listTasks()).tasks).toEqual([]);
  });

  it('a task that ends within waitMs is the result', async () => {
    harness = await startHarness({ mock: { durations: { pending: 500, image: 4_000 } } });
    const mcp = await harness.connect();
    const result = await runInFakeTime(call(mcp, 'generate_image', { model: 'omni-image', prompt: 'a fox', n: 2 }));
    expect(result.structuredContent).toMatchObject({ status: 'completed', data: [{}, {}] });
  });

  it('get_task with wait: false reads the task once', async () => {
    harness = await startHarness({ mock: { durations: THIRTY_SECONDS } });
    const submitted = await runInFakeTime(harness.client.videos.generate({ prompt: 'a fox' }));
    const mcp = await harness.connect();
    harness.mock.clearRequests();
    const result = await runInFakeTime(call(mcp, 'get_task', { task_id: submitted.task_id, wait: false }));
    expect(result.structuredContent).toMatchObject({ task_id: submitted.task_id, status: 'pending' });
    expect(harness.mock.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v1/tasks/${submitted.task_id}`]);
  });
});
