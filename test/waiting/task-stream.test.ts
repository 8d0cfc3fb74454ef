// A page's waits behind the app's proxy read the task's events: the page's client (proxyURL)
// against a real proxy on loopback in front of the mock service. What the page sends is counted
// by its own fetch; a stream is cut, refused or missing by a fetch that does so on purpose.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, OmniMedia, WaitTimeoutError, type TaskResult } from 'omnimedia';
import { createProxy, type ProxyOptions } from 'omnimedia/proxy';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { TasksClient } from 'omnimedia/tasks';
import { KEY, SESSION, authorizeBySession } from '../proxy/helpers.ts';

let mock: MockServer;
const servers: Server[] = [];

async function proxyAt(options: Partial<ProxyOptions> = {}): Promise<string> {
  const proxy = createProxy({ apiKey: KEY, baseURL: mock.url, basePath: '/api/omnimedia', authorize: authorizeBySession, ...options });
  const server = createServer((req, res) => proxy.nodeHandler(req, res)).listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/omnimedia`;
}

/** A page's client whose every request is listed (method and path), `around` given each fetch. */
function page(proxyURL: string, around?: (url: string, next: () => Promise<Response>, init: RequestInit | undefined) => Promise<Response>) {
  const sent: string[] = [];
  const client = new OmniMedia({
    proxyURL,
    defaultHeaders: { cookie: SESSION },
    fetch: (input, init) => {
      const url = String(input);
      sent.push(`${init?.method ?? 'GET'} ${new URL(url).pathname.replace('/api/omnimedia', '')}`);
      const next = () => fetch(input, init);
      return around ? around(url, next, init) : next();
    },
  });
  return { client, sent };
}

const submit = async (client: OmniMedia) => (await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse' })).task_id;

beforeAll(async () => {
  mock = await startMockServer({ apiKeys: [KEY], durations: { pending: 800, image: 2_500 } });
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await mock.close();
});

describe('a page\u2019s waits behind the proxy read the task\u2019s events', () => {
  it('.wait() is one request from the page however long the task runs; onProgress sees each status', async () => {
    const { client, sent } = page(await proxyAt());
    const statuses: string[] = [];
    const task = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse' }).wait({ onProgress: (t) => statuses.push(t.status) });
    expect(task.status).toBe('completed');
    expect(statuses).toEqual(['pending', 'processing', 'completed']);
    expect(sent).toEqual(['POST /v1/images/generations', `GET /v1/tasks/${task.task_id}/events`]);
  });

  it('after the end the proxy ends the stream: the page never aborts its request (a browser reports that as a failed request)', async () => {
    const signals: AbortSignal[] = [];
    const ends: Promise<void>[] = [];
    const { client } = page(await proxyAt(), async (url, next, init) => {
      const response = await next();
      if (!url.endsWith('/events') || !response.body) return response;
      if (init?.signal) signals.push(init.signal);
      // The page's copy of the stream, and ours to see the proxy end it.
      const [mine, theirs] = response.body.tee();
      ends.push(mine.pipeTo(new WritableStream()).catch(() => {}));
      return new Response(theirs, response);
    });
    const task = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse' }).wait();
    expect(task.status).toBe('completed');
    await Promise.all(ends);
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
  });

  it('tasks.watch and TasksClient too: each change, the end last', async () => {
    const url = await proxyAt();
    const { client } = page(url);
    const taskId = await submit(client);
    const seen: string[] = [];
    const tasks = new TasksClient({ proxyURL: url, defaultHeaders: { cookie: SESSION } });
    for await (const task of tasks.watch(taskId)) seen.push(task.status);
    expect(seen).toEqual(['pending', 'processing', 'completed']);
  });

  it('a stream cut mid-run is reopened with Last-Event-ID, and the wait ends as before', async () => {
    let cut = 0;
    const { client, sent } = page(await proxyAt(), async (url, next) => {
      const response = await next();
      if (!url.endsWith('/events')) return response;
      if (cut++ > 0 || !response.body) return response;
      // The first stream breaks right after its first event.
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          if (new TextDecoder().decode(value).includes('event: task')) {
            void reader.cancel();
            controller.error(new TypeError('terminated'));
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    });
    const task = await client.images.generate({ model: 'omni-image', prompt: 'x' }).wait();
    expect(task.status).toBe('completed');
    expect(sent.filter((line) => line.endsWith('/events'))).toHaveLength(2);
    expect(sent.some((line) => /^GET \/v1\/tasks\/[^/]+$/.test(line))).toBe(false);
  });

  it('reopens a stream that ended without the end after a second, with the last event id', async () => {
    const asked: (string | undefined)[] = [];
    let first = true;
    const { client } = page(await proxyAt(), async (url, next, init) => {
      if (!url.endsWith('/events')) return next();
      asked.push((init?.headers as Record<string, string> | undefined)?.['last-event-id']);
      const response = await next();
      if (!first || !response.body) return response;
      first = false;
      // The first stream ends cleanly after its first event (a maxStreamMs, a deploy).
      const reader = response.body.getReader();
      let text = '';
      while (!text.includes('event: task')) text += new TextDecoder().decode((await reader.read()).value);
      void reader.cancel();
      return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    });
    const task = await client.images.generate({ model: 'omni-image', prompt: 'x' }).wait();
    expect(task.status).toBe('completed');
    expect(asked).toEqual([undefined, '1']);
  });

  it('a stream cut after every event (the proxy resends the current task: no news) is reopened a second later, never at once', async () => {
    const opened: number[] = [];
    const { client, sent } = page(await proxyAt(), async (url, next) => {
      if (!url.endsWith('/events')) return next();
      opened.push(Date.now());
      const response = await next();
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!/event: task[^]*\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
      void reader.cancel();
      return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    });
    const task = await client.images.generate({ model: 'omni-image', prompt: 'x' }).wait({ initialDelay: 0, interval: 200, maxInterval: 400 });
    expect(task.status).toBe('completed');
    // Before: 7,793 streams in 3 s (each resend counted as delivered, every reopen at once).
    // The task's statuses bring news at some reopens here (how many depends on where its real
    // 3.3 s fall: 4 or 5 streams): what is asserted is the spacing, which bounds the rate by
    // construction; with no news at all the third stream is the last (retry-delays.test.ts, on
    // fake time).
    expect(sent.length).toBeLessThanOrEqual(10);
    for (let i = 1; i < opened.length; i++) expect((opened[i] as number) - (opened[i - 1] as number)).toBeGreaterThanOrEqual(700);
  });

  it('after two failures in a row it polls through the proxy; an older proxy (404) is polled at once, and not asked again', async () => {
    const refused = page(await proxyAt(), async (url, next) => (url.endsWith('/events') ? new Response('{"error":{"message":"down"}}', { status: 502 }) : next()));
    const polls = () => refused.sent.filter((line) => /^GET \/v1\/tasks\/[^/]+$/.test(line)).length;
    // The task runs until the page has polled it twice; then the test ends it (on a loaded
    // machine a 3.3 s task ended before the second poll).
    mock.mock.setDurations({ image: 3_600_000 });
    const submission = refused.client.images.generate({ model: 'omni-image', prompt: 'x' });
    const { task_id: taskId } = await submission.finally(() => mock.mock.setDurations({ image: 2_500 }));
    const waiting = submission.wait({ initialDelay: 0, interval: 200, maxInterval: 400 });
    while (polls() < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    mock.mock.completeTask(taskId);
    const task = await waiting;
    expect(task.status).toBe('completed');
    expect(refused.sent.filter((line) => line.endsWith('/events'))).toHaveLength(2);

    const older = page(await proxyAt({ events: false }));
    for (let i = 0; i < 2; i++) {
      const done = await older.client.images.generate({ model: 'omni-image', prompt: 'x' }).wait({ initialDelay: 0, interval: 200, maxInterval: 400 });
      expect(done.status).toBe('completed');
    }
    expect(older.sent.filter((line) => line.endsWith('/events'))).toHaveLength(1);
  });

  it('the same deadline, abort and errors as polling; a closed wait gives its stream up at once', async () => {
    const url = await proxyAt({ events: { perIdentity: 1 } });
    const { client } = page(url);
    const taskId = await submit(client);
    await expect(client.tasks.wait(taskId, { timeout: 300 })).rejects.toBeInstanceOf(WaitTimeoutError);
    const controller = new AbortController();
    const waiting = client.tasks.wait(taskId, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 200);
    await expect(waiting).rejects.toThrow('user left');
    // The one place of this identity was given back: a new wait streams at once.
    const { client: again, sent } = page(url);
    const progress: TaskResult[] = [];
    await again.tasks.wait(taskId, { onProgress: (t) => progress.push(t) });
    expect(sent.filter((line) => /^GET \/v1\/tasks\/[^/]+$/.test(line))).toEqual([]);
    await expect(client.tasks.wait('task_unknown_here')).rejects.toBeInstanceOf(NotFoundError);
  });
});
