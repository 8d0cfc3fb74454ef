// A cancel stops everything not yet sent: an upload held by the service is aborted and the
// submission never goes out (tasks/cancel on a task call, notifications/cancelled on a plain
// one); a cancel once the POST is out keeps its answer: the task id reaches the agent in the
// MCP task's status message and its result. Real time, a real socket: each step waits for the
// event that proves it (the service seeing the client leave), never for a duration.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callAsTask } from './helpers.ts';
import { json, mcpOn, startHostileService, taskBody, type HostileService } from './hostile-service.ts';

let dir: string;
let service: HostileService;
let server: Awaited<ReturnType<typeof mcpOn>> | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-mcp-cancel-'));
  await writeFile(join(dir, 'photo.png'), await readFile(fileURLToPath(new URL('../fixtures/tiny.png', import.meta.url))));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  await service?.close();
});

const EDIT = () => ({ model: 'omni-image', prompt: 'at night', image: join(dir, 'photo.png') });
const submissions = () => service.received.filter((r) => r.method === 'POST' && !r.path.startsWith('/v1/uploads')).length;
const POLL = { timeout: 20_000, interval: 50 };

describe('a cancel before the submission is sent', () => {
  it('tasks/cancel during a slow upload: the upload is aborted, no POST; the task says nothing was submitted', async () => {
    service = await startHostileService();
    server = await mcpOn(service, { server: { allowedDirs: [dir] } });
    const mcp = await server.connect();
    const created = await callAsTask(mcp, 'edit_image', EDIT());
    const upload = await service.next('POST', /^\/v1\/uploads\/images$/);
    await mcp.experimental.tasks.cancelTask(created.task.taskId);
    await upload.gone; // the server's client left the upload: it was aborted
    // The call is over: its MCP task says so, and nothing more was sent.
    await expect.poll(async () => (await mcp.experimental.tasks.getTask(created.task.taskId)).statusMessage, POLL).toContain('nothing was submitted');
    expect(submissions()).toBe(0);
    const result = (await mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('nothing was submitted');
  }, 30_000);

  it('notifications/cancelled on a plain call during a slow upload: the upload is aborted, no POST', async () => {
    service = await startHostileService();
    server = await mcpOn(service, { server: { allowedDirs: [dir] } });
    const mcp = await server.connect();
    const abort = new AbortController();
    const calling = mcp.callTool({ name: 'edit_image', arguments: EDIT() }, CallToolResultSchema, { signal: abort.signal });
    calling.catch(() => {});
    const upload = await service.next('POST', /^\/v1\/uploads\/images$/);
    abort.abort(new Error('the user pressed stop'));
    await upload.gone;
    expect(submissions()).toBe(0);
  }, 30_000);
});

describe('a cancel once the submission is out', () => {
  it('tasks/cancel while the POST awaits its answer: the task id reaches the status message and the result', async () => {
    service = await startHostileService();
    server = await mcpOn(service);
    const mcp = await server.connect();
    const created = await callAsTask(mcp, 'generate_image', { model: 'omni-image', prompt: 'a fox' });
    const post = await service.next('POST', /^\/v1\/images\/generations$/);
    await mcp.experimental.tasks.cancelTask(created.task.taskId);
    json(post.res, 200, taskBody('task_after_cancel', 'pending'));
    await expect.poll(async () => (await mcp.experimental.tasks.getTask(created.task.taskId)).statusMessage, POLL).toContain('task_after_cancel');
    const status = (await mcp.experimental.tasks.getTask(created.task.taskId)).statusMessage ?? '';
    expect(status).toContain('get_task');
    const result = (await mcp.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { task_id?: string } }).error.task_id).toBe('task_after_cancel');
    expect(submissions()).toBe(1);
  }, 30_000);
});

describe('a lost answer', () => {
  it('the service took the POST and the connection reset: the tool error says the task may exist and be billed, and that submitting again may pay twice', async () => {
    service = await startHostileService();
    service.answer((request) => void request.res.socket?.destroy());
    server = await mcpOn(service);
    const mcp = await server.connect();
    const result = (await mcp.callTool({ name: 'generate_image', arguments: { model: 'omni-image', prompt: 'a fox' } }, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^APIConnectionError: /);
    expect(text).toContain('The submission was sent and no answer was received: the task may exist, and be billed.');
    expect(text).toContain('Submitting it again may pay twice');
    expect(submissions()).toBe(1);
  }, 30_000);
});
