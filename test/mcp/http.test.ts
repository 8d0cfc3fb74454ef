// `omnimedia mcp --http`'s server, over real HTTP: a missing or wrong token (401), a cross-site
// Origin or a foreign Host (403) are refused before anything reaches the MCP SDK, so before any
// tool runs; a tool call delivered again after a reconnect (same session and request id) is one
// submission.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { TOKEN, startHarness, submissions, type Harness } from './helpers.ts';

let harness: Harness;
afterEach(async () => {
  await harness?.close();
});

const PROTOCOL = '2025-11-25';
const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** The JSON-RPC messages of an SSE (or JSON) answer. */
async function messages(response: Response): Promise<{ id?: unknown; result?: Record<string, unknown>; error?: unknown }[]> {
  const text = await response.text();
  if (response.headers.get('content-type')?.includes('application/json')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

/** A session opened by hand: its id, and the headers every later request carries. */
async function openSession(url: string): Promise<Record<string, string>> {
  const response = await post(url, INITIALIZE);
  const session = response.headers.get('mcp-session-id');
  expect(session).toBeTruthy();
  await messages(response);
  const headers = { 'mcp-session-id': session as string, 'mcp-protocol-version': PROTOCOL };
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  return headers;
}

/** A request with a Host header of our choosing (fetch sets its own). */
function withHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { host, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify(INITIALIZE));
  });
}

describe('the HTTP transport refuses before any tool runs', () => {
  it('401 without the token or with a wrong one, 403 for a cross-site Origin or a foreign Host; a same-origin page and a client without Origin pass', async () => {
    harness = await startHarness();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'generate_image', arguments: { model: 'omni-image', prompt: 'a fox' } } };
    const missing = await post(harness.url, INITIALIZE, { authorization: '' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect((await post(harness.url, call, { authorization: 'Bearer not-the-token' })).status).toBe(401);
    expect((await post(harness.url, call, { authorization: `Basic ${TOKEN}` })).status).toBe(401);
    expect((await post(harness.url, call, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(harness.url, call, { origin: 'http://127.0.0.1.evil.example' })).status).toBe(403);
    expect(await withHost(harness.url, 'evil.example')).toBe(403);
    expect((await post(harness.url.replace('/mcp', '/other'), INITIALIZE)).status).toBe(404);
    // A session's id does not stand in for the token.
    const headers = await openSession(harness.url);
    expect((await post(harness.url, call, { ...headers, authorization: '' })).status).toBe(401);
    expect(harness.mock.requests).toEqual([]);

    const origin = new URL(harness.url).origin;
    expect((await post(harness.url, INITIALIZE, { origin })).status).toBe(200);
  });
});

describe('a reconnect that repeats a call', () => {
  it('the same session and request id get the same task: one POST, for a plain call and for a task call', async () => {
    harness = await startHarness({ mock: { durations: { pending: 100, image: 200 } }, server: { embedImages: false } });
    const headers = await openSession(harness.url);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'generate_image', arguments: { model: 'omni-image', prompt: 'a fox' } } };
    // The connection drops once the service has the submission, before the answer.
    const cut = new AbortController();
    const first = post(harness.url, call, headers, cut.signal).then(messages).catch((error: unknown) => error);
    while (submissions(harness.mock) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    cut.abort();
    expect(await first).toBeInstanceOf(Error);
    const [answer] = await messages(await post(harness.url, call, headers));
    expect(answer?.id).toBe(7);
    const task = answer?.result?.structuredContent as { task_id: string; status: string };
    expect(task.status).toBe('completed');
    expect(submissions(harness.mock)).toBe(1);
    expect(harness.mock.tasks().map((t) => t.task_id)).toEqual([task.task_id]);

    const asTask = { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { ...call.params, task: { ttl: 60_000 } } };
    const [created] = await messages(await post(harness.url, asTask, headers));
    const [again] = await messages(await post(harness.url, asTask, headers));
    expect((again?.result?.task as { taskId: string }).taskId).toBe((created?.result?.task as { taskId: string }).taskId);
    expect(submissions(harness.mock)).toBe(2);
    // Another session's id 7 is another request.
    const other = await openSession(harness.url);
    await messages(await post(harness.url, call, other));
    expect(submissions(harness.mock)).toBe(3);
  });
});
