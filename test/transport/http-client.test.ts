// The HTTP layer against real sockets on loopback: genuine ECONNREFUSED and connection resets,
// which a request interceptor can only imitate. No MSW in this file.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APIConnectionError, APITimeoutError, OmniMedia, type Logger } from 'omnimedia';
import { API_KEY } from '../helpers/msw.ts';
import { portBelowEphemeralRange } from '../helpers/ports.ts';

const SUBMISSION = { task_id: 'task_1', status: 'pending' };
// settle() runs fake time forward while real I/O completes; a long timeout keeps a slow
// machine from turning real latency into a fake-time timeout.
const HOUR = 3_600_000;
const servers: Server[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

/** Start a server on 127.0.0.1 (on `port`, or a free one); `n` counts requests from 1. */
async function serve(handler: Handler, port = 0): Promise<{ port: number; requests: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res, ++n));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests: () => n };
}


const sendJson = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Logs captured; `retries` resolves the n-th time a retry is announced. */
function captureLogs() {
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  const push = (message: string) => {
    lines.push(message);
    if (message.includes(' retry ')) waiters.shift()?.();
  };
  const logger: Logger = { error: push, warn: push, info: push, debug: push };
  return { lines, logger, nextRetry: () => new Promise<void>((resolve) => waiters.push(resolve)) };
}

/**
 * Settle `promise` under fake timers for the retry sleeps while real sockets do their I/O:
 * alternate a fake-time step with a real turn of the event loop. Bounded.
 */
async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  let done = false;
  void outcome.then(() => (done = true));
  for (let i = 0; i < 2_000 && !done; i++) {
    await vi.advanceTimersByTimeAsync(50);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return outcome;
}

const fakeSleeps = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

describe('connection failures on real sockets', () => {
  it('POST: connection refused, then the server comes up → retried, and the service sees one POST', async () => {
    const port = await portBelowEphemeralRange();
    const logs = captureLogs();
    const client = new OmniMedia({ timeout: HOUR, apiKey: API_KEY, baseURL: `http://127.0.0.1:${port}`, logger: logs.logger, logLevel: 'info' });
    fakeSleeps();
    const firstRetry = logs.nextRetry();
    const result = client.images.generate({ model: 'm', prompt: 'p' });
    // The first attempt meets a closed port (a genuine ECONNREFUSED); the server starts during the retry sleep.
    let server: Awaited<ReturnType<typeof serve>> | undefined;
    const started = firstRetry.then(async () => {
      server = await serve((_req, res) => sendJson(res, 200, SUBMISSION), port);
    });
    while (!server) {
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.race([started, new Promise((resolve) => setImmediate(resolve))]);
    }
    const { value, error } = await settle(result);
    expect(error).toBeUndefined();
    expect(value?.task_id).toBe('task_1');
    expect(server.requests()).toBe(1);
    expect(logs.lines.some((l) => /retry 1 .*ECONNREFUSED/.test(l))).toBe(true);
  });

  it('POST: refused every time → APIConnectionError naming ECONNREFUSED after maxRetries', async () => {
    const port = await portBelowEphemeralRange();
    const logs = captureLogs();
    const client = new OmniMedia({ timeout: HOUR, apiKey: API_KEY, baseURL: `http://127.0.0.1:${port}`, logger: logs.logger, logLevel: 'info', maxRetries: 2 });
    fakeSleeps();
    const { error } = await settle(client.images.generate({ model: 'm', prompt: 'p' }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe(`images.generate: could not reach http://127.0.0.1:${port}/ (ECONNREFUSED)`);
    expect(logs.lines.filter((l) => l.includes(' retry '))).toHaveLength(2);
  });

  it('POST: connection reset after the request was sent → not retried (the task may exist)', async () => {
    const server = await serve((req) => req.socket.destroy());
    const client = new OmniMedia({ timeout: HOUR, apiKey: API_KEY, baseURL: `http://127.0.0.1:${server.port}` });
    fakeSleeps();
    const { error } = await settle(client.images.generate({ model: 'm', prompt: 'p' }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(server.requests()).toBe(1);
  });

  it('GET: connection reset, then an answer → retried', async () => {
    const server = await serve((req, res, n) => (n === 1 ? req.socket.destroy() : sendJson(res, 200, SUBMISSION)));
    const client = new OmniMedia({ timeout: HOUR, baseURL: `http://127.0.0.1:${server.port}` });
    fakeSleeps();
    const { value, error } = await settle(client.tasks.retrieve('task_1'));
    expect(error).toBeUndefined();
    expect(value).toEqual(SUBMISSION);
    expect(server.requests()).toBe(2);
  });

  it.each([500, 503])('GET: %i, then an answer → retried', async (status) => {
    const server = await serve((_req, res, n) => (n === 1 ? sendJson(res, status, { error: 'x' }) : sendJson(res, 200, SUBMISSION)));
    const client = new OmniMedia({ timeout: HOUR, baseURL: `http://127.0.0.1:${server.port}` });
    fakeSleeps();
    const { value } = await settle(client.tasks.retrieve('task_1'));
    expect(value).toEqual(SUBMISSION);
    expect(server.requests()).toBe(2);
  });

  it('GET: connection refused every time → APIConnectionError with the task id', async () => {
    const port = await portBelowEphemeralRange();
    const client = new OmniMedia({ timeout: HOUR, baseURL: `http://127.0.0.1:${port}`, maxRetries: 1 });
    fakeSleeps();
    const { error } = await settle(client.tasks.retrieve('task_9'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ taskId: 'task_9' });
  });
});
