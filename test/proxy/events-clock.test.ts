// The events route's own times on fake time (the proxy's `handler` in process, the mock as its
// `fetch`: no socket, no real timer): a ping every heartbeatMs and the end at maxStreamMs,
// counted exactly. events.test.ts shows the same stream through real servers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProxy } from 'omnimedia/proxy';
import { createMockService, type MockService } from 'omnimedia/testing';
import { authorizeBySession, KEY, SESSION } from './helpers.ts';

let mock: MockService;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  mock = createMockService({ apiKeys: [KEY], durations: { pending: 1_000, image: 2_500 } });
});
afterEach(() => {
  mock.close();
  vi.useRealTimers();
});

/** The stream's text so far, read as it comes, and whether it ended. */
function reading(body: ReadableStream<Uint8Array>) {
  const state = { text: '', ended: false };
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) state.text += decoder.decode(chunk, { stream: true });
    state.ended = true;
  })();
  return state;
}

describe('the events route on fake time', () => {
  it('a ping every heartbeatMs, and the end at maxStreamMs: not one ping more, not a moment later', async () => {
    const proxy = createProxy({ apiKey: KEY, baseURL: mock.baseURL, fetch: mock.fetch, basePath: '/api/omnimedia', authorize: authorizeBySession, events: { heartbeatMs: 100, maxStreamMs: 1_000 } });
    const submitted = await mock.fetch(`${mock.baseURL}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'omni-image', prompt: 'a lighthouse' }),
    });
    const { task_id: taskId } = (await submitted.json()) as { task_id: string };
    const response = await proxy.handler(new Request(`https://app.example.com/api/omnimedia/v1/tasks/${taskId}/events`, { headers: { cookie: SESSION } }));
    expect(response.status).toBe(200);
    const stream = reading(response.body!);
    const pings = () => stream.text.split(': ping\n').length - 1;
    await vi.advanceTimersByTimeAsync(950);
    expect(pings()).toBe(9);
    expect(stream.ended).toBe(false);
    expect(stream.text).toContain('"status":"pending"');
    await vi.advanceTimersByTimeAsync(50);
    expect(stream.ended).toBe(true);
    expect(pings()).toBeLessThanOrEqual(10);
    // The task runs on (it ends at 3.5 s): the stream ended by its limit, not by the task.
    expect(mock.task(taskId)?.status).not.toBe('completed');
  });
});
