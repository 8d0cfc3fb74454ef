// Callback and polling together: a submission with callback_url and .wait(); the callback,
// once verified by a handler of the same client, ends the wait before its next poll, and
// polling stops.
import type { RequestListener } from 'node:http';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia, type TaskResult } from 'omnimedia';
import { startCallbackService } from '../helpers/callback-service.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { nodeReceiver } from '../helpers/receivers.ts';

const server = useMsw();
const silent = { error() {}, warn() {}, info() {}, debug() {} };

afterEach(() => {
  vi.useRealTimers();
});

describe('a callback ends a pending wait', () => {
  it('resolves .wait() before its next poll (fake timers), and no poll follows', async () => {
    // setImmediate stays real: MSW and fetch need it to answer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    let task: TaskResult = { task_id: 't_cb', status: 'pending', model: 'm' };
    let queries = 0;
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ task_id: 't_cb', status: 'pending', model: 'm' })),
      http.get(`${BASE_URL}/v1/tasks/t_cb`, () => {
        queries++;
        return HttpResponse.json(task);
      }),
    );
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logger: silent });
    const handle = client.callbacks.handler(() => {});
    let settled: TaskResult | undefined;
    const waiting = client.images
      .generate({ model: 'm', prompt: 'p', callback_url: 'https://me.test/hooks/omnimedia' })
      .wait()
      .then((t) => (settled = t));

    // The first poll, 3 s after submission, still sees the task pending.
    await vi.advanceTimersByTimeAsync(3_100);
    expect(queries).toBe(1);
    expect(settled).toBeUndefined();

    // The task completes and the service calls back; the handler verifies (one query).
    task = { ...task, status: 'completed', data: [{ url: 'https://files.test/a.png' }] };
    const response = await handle(
      new Request('https://me.test/hooks/omnimedia', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(task) }),
    );
    expect(response.status).toBe(200);
    // Let promise callbacks run without moving the clock to the next poll.
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toEqual(task);
    expect(queries).toBe(2);
    await waiting;

    // Polling stopped: a long time later, still no further query.
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(queries).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('through real HTTP: the callback delivered to a nodeHandler ends a wait whose first poll is a minute away', async () => {
    server.close(); // real sockets only in this test
    const service = await startCallbackService();
    try {
      const client = new OmniMedia({ apiKey: API_KEY, baseURL: service.baseURL, logger: silent, maxRetries: 0 });
      const receiver = await nodeReceiver(client.callbacks.nodeHandler(() => {}) as RequestListener);
      try {
        const promise = client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
        const { task_id } = await promise;
        const waiting = promise.wait({ initialDelay: 60_000 });
        service.complete(task_id);
        expect((await service.deliver(task_id)).status).toBe(200);
        const task = await waiting;
        expect(task.status).toBe('completed');
        // The only query was the handler's verify; the wait never polled.
        expect(service.queries).toEqual([task_id]);
      } finally {
        await receiver.close();
      }
    } finally {
      await service.close();
      server.listen({ onUnhandledFrame: 'error' });
    }
  });
});
