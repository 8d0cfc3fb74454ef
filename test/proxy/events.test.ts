// The task events route (DESIGN 12) on real servers: node:http with `nodeHandler`, Express in
// front of it, and Hono's app with `handler` on @hono/node-server, in front of the mock service.
// Every stream is read as a page reads it, event by event with the task's status at the mock
// when it arrived, so a stream that a server gathered and sent at its end fails.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, type ProxyOptions } from 'omnimedia/proxy';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { sseParser, type ServerSentEvent } from '../../src/transport/sse.ts';
import { KEY, SESSION } from './helpers.ts';

/** The session cookie's user: alice, or the one a `user=` cookie names. */
const byUser: ProxyOptions['authorize'] = (request) => {
  const cookie = request.headers.get('cookie') ?? '';
  return cookie.includes(SESSION) ? { id: /user=(\w+)/.exec(cookie)?.[1] ?? 'alice' } : null;
};

type Server3 = 'node:http' | 'express' | 'hono';

interface Running {
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** The proxy behind one of the three servers, mounted at /api/omnimedia. */
async function startOn(kind: Server3, options: Partial<ProxyOptions> & { upstream: string }): Promise<Running> {
  const { upstream, ...rest } = options;
  const proxy = createProxy({ apiKey: KEY, baseURL: upstream, basePath: '/api/omnimedia', authorize: byUser, logger: { error() {}, warn() {}, info() {}, debug() {} }, ...rest });
  if (kind === 'node:http') return listen(createServer((req, res) => proxy.nodeHandler(req, res)).listen(0, '127.0.0.1'));
  if (kind === 'express') {
    const app = express();
    app.get('/health', (_req, res) => void res.send('ok'));
    app.use(proxy.nodeHandler);
    return listen(app.listen(0, '127.0.0.1'));
  }
  const app = new Hono();
  app.all('/api/omnimedia/*', (c) => proxy.handler(c.req.raw));
  return listen(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }) as Server);
}

interface Heard {
  event: ServerSentEvent;
  /** The status of the event's task at the mock when the page got the event. */
  upstream: string | undefined;
}

/** The status at the mock, now, of the task an event carries. */
function upstreamStatus(event: ServerSentEvent): string | undefined {
  const taskId = (JSON.parse(event.data) as { task_id?: unknown }).task_id;
  return typeof taskId === 'string' ? (mock.mock.task(taskId)?.status as string | undefined) : undefined;
}

/** A page's stream: its answer, then each event with its task's status at the mock then, and the comments (pings) counted. */
async function open(url: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
  const response = await fetch(url, { headers: { cookie: SESSION, ...headers }, ...(signal ? { signal } : {}) });
  const heard: Heard[] = [];
  let pings = 0;
  let ended = false;
  const feed = sseParser((event) => heard.push({ event, upstream: upstreamStatus(event) }));
  const done = (async () => {
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        pings += text.split(': ping\n').length - 1;
        feed(text);
      }
      ended = true;
    } catch {
      // Aborted by the test.
    }
  })();
  return {
    response,
    heard,
    done,
    get pings() {
      return pings;
    },
    get ended() {
      return ended;
    },
    tasks: () => heard.filter((h) => h.event.event === 'task').map((h) => JSON.parse(h.event.data) as { task_id: string; status: string }),
  };
}

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ apiKeys: [KEY], durations: { pending: 1_000, image: 2_500 } });
});
afterAll(() => mock.close());

async function submit(): Promise<string> {
  const response = await fetch(`${mock.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'omni-image', prompt: 'a lighthouse' }),
  });
  return ((await response.json()) as { task_id: string }).task_id;
}

const reads = (taskId: string) => mock.mock.requests.filter((r) => r.method === 'GET' && r.path === `/v1/tasks/${taskId}`).length;

describe.each(['node:http', 'express', 'hono'] as Server3[])('task events on %s', (kind) => {
  const started: Running[] = [];
  const start = async (options: Partial<ProxyOptions> = {}) => {
    const running = await startOn(kind, { upstream: mock.url, ...options });
    started.push(running);
    return running;
  };
  afterEach(async () => {
    for (const running of started.splice(0)) await running.close();
  });

  it('streams the task as the proxy reads it: at once, one event per status, the terminal last, then the end; each flushed as it comes', async () => {
    const proxy = await start();
    // Every status seen whatever the machine's load: pending for 3 s (the stream opens within
    // them), then processing until the page has heard it (a watch's read came late on CI, past
    // a 2.5 s processing phase: ['pending', 'completed']); then the test ends the task.
    mock.mock.setDurations({ pending: 3_000, image: 3_600_000 });
    const taskId = await submit().finally(() => mock.mock.setDurations({ pending: 1_000, image: 2_500 }));
    const stream = await open(`${proxy.url}/api/omnimedia/v1/tasks/${taskId}/events`);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(stream.response.headers.get('x-accel-buffering')).toBe('no');
    await until(() => stream.tasks().some((t) => t.status === 'processing'), 30_000);
    mock.mock.completeTask(taskId);
    await stream.done;
    expect(stream.ended).toBe(true);
    expect(stream.tasks().map((t) => t.status)).toEqual(['pending', 'processing', 'completed']);
    expect(stream.heard.map((h) => h.event.id)).toEqual(['1', '2', '3']);
    // Flushed per event: the first reached the page while the task still ran at the mock (a
    // stream gathered and sent at its end would deliver it after), whatever the machine's load.
    expect(stream.heard[0]!.upstream).not.toBe('completed');
    // The data is the proxy's task read, byte for byte.
    const read = await fetch(`${proxy.url}/api/omnimedia/v1/tasks/${taskId}`, { headers: { cookie: SESSION } });
    expect(stream.heard.at(-1)!.event.data).toBe(await read.text());
  });

  it('ten streams of one task are one watch: the service is read as for one stream', async () => {
    const proxy = await start();
    const taskId = await submit();
    const streams = await Promise.all(Array.from({ length: 10 }, () => open(`${proxy.url}/api/omnimedia/v1/tasks/${taskId}/events`)));
    await Promise.all(streams.map((s) => s.done));
    for (const stream of streams) expect(stream.tasks().at(-1)?.status).toBe('completed');
    // One watch at the cadence of .wait(): a read at once, then 2.5 s, then the end.
    expect(reads(taskId)).toBeLessThanOrEqual(4);
  });

  it('Last-Event-ID: the current task again at once, the ids going on from it', async () => {
    const proxy = await start();
    const taskId = await submit();
    const first = await open(`${proxy.url}/api/omnimedia/v1/tasks/${taskId}/events`);
    await until(() => first.heard.length > 0);
    // At once: from what the watch knows, with no read of the task (every read fails meanwhile).
    mock.mock.internalErrorAlways({ on: ['tasks'] });
    const again = await open(`${proxy.url}/api/omnimedia/v1/tasks/${taskId}/events`, { 'last-event-id': '41' });
    try {
      await until(() => again.heard.length > 0);
    } finally {
      mock.mock.clearScenario();
    }
    expect(again.heard[0]!.event.id).toBe('42');
    expect(again.tasks()[0]).toMatchObject({ task_id: taskId, status: 'pending' });
    await Promise.all([first.done, again.done]);
  });

  it('a ping every heartbeatMs; a stream ends at maxStreamMs', async () => {
    const proxy = await start({ events: { heartbeatMs: 100, maxStreamMs: 1_000 } });
    const taskId = await submit();
    const stream = await open(`${proxy.url}/api/omnimedia/v1/tasks/${taskId}/events`);
    await stream.done;
    expect(stream.ended).toBe(true);
    // Ended by maxStreamMs, not by the task's end (it runs 3.5 s): the task still ran at the mock.
    expect(mock.mock.task(taskId)?.status).not.toBe('completed');
    // Pings reach the page through this server; their count is exact on fake time (events-clock.test.ts):
    // here a loaded machine may run the 100 ms interval only once before the limit.
    expect(stream.pings).toBeGreaterThanOrEqual(1);
    expect(stream.tasks().map((t) => t.status)).toEqual(['pending']);
  });

  it('a task the service does not know: event error with the proxy\u2019s error body and its status, then the end', async () => {
    const proxy = await start();
    const stream = await open(`${proxy.url}/api/omnimedia/v1/tasks/task_unknown/events`);
    await stream.done;
    expect(stream.heard.map((h) => h.event.event)).toEqual(['error']);
    const body = JSON.parse(stream.heard[0]!.event.data) as { status: number; error: unknown };
    expect(body.status).toBe(404);
    expect(body.error).toBeDefined();
  });

  it('limits per identity and per process: 429 with Retry-After beyond; a closed page gives its place back at once', async () => {
    const proxy = await start({ events: { perIdentity: 2, perProcess: 3 } });
    const taskId = await submit();
    const url = `${proxy.url}/api/omnimedia/v1/tasks/${taskId}/events`;
    const pages = [new AbortController(), new AbortController()];
    const open1 = await open(url, {}, pages[0]!.signal);
    await open(url, {}, pages[1]!.signal);
    const third = await fetch(url, { headers: { cookie: SESSION } });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('too_many_streams');
    pages[0]!.abort();
    await open1.done;
    // Given back at once: the next one opens without waiting for anything.
    pages[0] = new AbortController();
    const again = await open(url, {}, pages[0].signal);
    expect(again.response.status).toBe(200);
    // Per process: another user gets the third place, not a fourth.
    const bob = { cookie: `${SESSION}; user=bob` };
    const bobs = new AbortController();
    pages.push(bobs);
    expect((await open(url, bob, bobs.signal)).response.status).toBe(200);
    const fourth = await fetch(url, { headers: { cookie: `${SESSION}; user=carol` } });
    expect(fourth.status).toBe(429);
    expect(((await fourth.json()) as { error: { message: string } }).error.message).toMatch(/on this server/);
    for (const page of pages) page.abort();
  });

  it('authorised like a task read: 401 without a session, policy asked with task_events, cross-site refused; events: false is a 404', async () => {
    const asked: string[] = [];
    const proxy = await start({ policy: ({ operation, params }) => (asked.push(`${operation} ${String(params.task_id)}`), params.task_id !== 'task_forbidden') });
    expect((await fetch(`${proxy.url}/api/omnimedia/v1/tasks/task_1/events`)).status).toBe(401);
    expect((await fetch(`${proxy.url}/api/omnimedia/v1/tasks/task_forbidden/events`, { headers: { cookie: SESSION } })).status).toBe(403);
    expect((await fetch(`${proxy.url}/api/omnimedia/v1/tasks/task_1/events`, { headers: { cookie: SESSION, origin: 'https://evil.example' } })).status).toBe(403);
    expect((await fetch(`${proxy.url}/api/omnimedia/v1/tasks/task_1/events`, { method: 'POST', headers: { cookie: SESSION } })).status).toBe(405);
    expect(asked).toEqual(['task_events task_forbidden']);
    const off = await start({ events: false });
    expect((await fetch(`${off.url}/api/omnimedia/v1/tasks/task_1/events`, { headers: { cookie: SESSION } })).status).toBe(404);
  });
});

describe('task events with a callbackURL', () => {
  it('without a coordination no callback can reach the watch: it follows the task at the cadence of .wait(), not the 30 s fallback', async () => {
    const proxy = await startOn('node:http', { upstream: mock.url, callbackURL: 'https://app.example.com/api/omnimedia-callback' });
    try {
      const taskId = await submit();
      const stream = await open(`${proxy.url}/api/omnimedia/v1/tasks/${taskId}/events`);
      // The task ends 3.5 s after its submission; the wait's cadence reads it by about 6 s.
      await until(() => stream.ended, 12_000);
      expect(stream.tasks().at(-1)?.status).toBe('completed');
    } finally {
      await proxy.close();
    }
  }, 20_000);
});
