// Completion callbacks POSTed for real (spec 6) to a receiver on loopback, with retries.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMockService, type MockService } from 'omnimedia/testing';
import { get, post } from './mock-helpers.ts';

interface Received {
  method: string;
  contentType: string | undefined;
  body: Record<string, unknown>;
}

let receiver: Server;
let received: Received[];
let answers: number[];
/** A Retry-After the receiver sends with its failures, if any. */
let retryAfter: string | undefined;
let receiverUrl: string;
let mock: MockService;

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => resolve(text));
  });

beforeEach(async () => {
  received = [];
  answers = [];
  retryAfter = undefined;
  receiver = createServer(async (request, response) => {
    received.push({ method: request.method ?? '', contentType: request.headers['content-type'], body: JSON.parse(await readBody(request)) });
    const status = answers.shift() ?? 200;
    response.writeHead(status, { 'content-type': 'application/json', ...(status >= 300 && retryAfter ? { 'retry-after': retryAfter } : {}) }).end(JSON.stringify({ received: status < 300 }));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/omnimedia`;
  // Only Date and setTimeout are faked: the loopback sockets keep their real timers.
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  mock = createMockService({ durations: { pending: 1000, image: 2000, video: 3000 } });
});

afterEach(async () => {
  mock.close();
  vi.useRealTimers();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

async function submitImage(extra: Record<string, unknown> = {}): Promise<string> {
  const response = await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p', callback_url: receiverUrl, ...extra });
  return ((await response.json()) as { task_id: string }).task_id;
}

describe('completion callbacks', () => {
  it('POSTs the task result, identical to the task query, when the task completes', async () => {
    const id = await submitImage();
    await vi.advanceTimersByTimeAsync(2999);
    await mock.callbacksSettled();
    expect(received).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await mock.callbacksSettled();
    expect(received).toHaveLength(1);
    expect(received[0]!.method).toBe('POST');
    expect(received[0]!.contentType).toBe('application/json');
    expect(received[0]!.body).toMatchObject({ task_id: id, status: 'completed', data: [{ url: expect.any(String) }] });
    expect(received[0]!.body).toEqual(await (await get(mock, `/v1/tasks/${id}`)).json());
    expect(mock.callbackDeliveries).toEqual([{ taskId: id, url: receiverUrl, attempt: 1, at: expect.any(Number), status: 200, ok: true }]);
  });

  it('after a retried attempt the body lists the failed attempt, then the completed one', async () => {
    mock.failNextAttempt('provider_timeout');
    await submitImage();
    await vi.advanceTimersByTimeAsync(5000);
    await mock.callbacksSettled();
    expect(received[0]!.body).toMatchObject({
      status: 'completed',
      attempt_count: 2,
      attempts: [{ status: 'failed', fail_reason: 'provider_timeout' }, { status: 'completed' }],
    });
  });

  it('retries when the receiver fails: 500, 503, then 200 after 1 s and 2 s', async () => {
    answers = [500, 503];
    const id = await submitImage();
    await vi.advanceTimersByTimeAsync(3000);
    await mock.callbacksSettled();
    expect(mock.callbackDeliveries.map((d) => d.status)).toEqual([500]);
    await vi.advanceTimersByTimeAsync(999);
    await mock.callbacksSettled();
    expect(received).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await mock.callbacksSettled();
    expect(mock.callbackDeliveries.map((d) => d.status)).toEqual([500, 503]);
    await vi.advanceTimersByTimeAsync(2000);
    await mock.callbacksSettled();
    expect(mock.callbackDeliveries.map((d) => [d.attempt, d.status, d.ok])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 200, true],
    ]);
    expect(received.map((r) => r.body.task_id)).toEqual([id, id, id]);
    // Delivered: no more tries, however long we wait.
    await vi.advanceTimersByTimeAsync(60_000);
    await mock.callbacksSettled();
    expect(received).toHaveLength(3);
  });

  it("honours the receiver's Retry-After when it asks for longer than the next delay (a delivery in progress)", async () => {
    answers = [503];
    retryAfter = '5';
    await submitImage();
    await vi.advanceTimersByTimeAsync(3000);
    await mock.callbacksSettled();
    expect(mock.callbackDeliveries.map((d) => d.status)).toEqual([503]);
    await vi.advanceTimersByTimeAsync(4999); // not after the usual 1 s
    await mock.callbacksSettled();
    expect(received).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await mock.callbacksSettled();
    expect(mock.callbackDeliveries.map((d) => [d.attempt, d.status])).toEqual([
      [1, 503],
      [2, 200],
    ]);
  });

  it('retries when nothing listens, and gives up after the configured delays', async () => {
    mock = createMockService({ durations: { pending: 0, image: 1000 }, callbackRetryDelays: [500] });
    const closed = new URL(receiverUrl);
    closed.port = '1'; // nothing listens on port 1
    await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p', callback_url: closed.href });
    await vi.advanceTimersByTimeAsync(1000);
    await mock.callbacksSettled();
    await vi.advanceTimersByTimeAsync(500);
    await mock.callbacksSettled();
    await vi.advanceTimersByTimeAsync(10_000);
    await mock.callbacksSettled();
    expect(mock.callbackDeliveries).toHaveLength(2);
    expect(mock.callbackDeliveries.every((d) => !d.ok && d.error !== undefined)).toBe(true);
  });

  it('sends the failed task when it fails (failTask sends at once)', async () => {
    const id = await submitImage();
    await vi.advanceTimersByTimeAsync(1500);
    mock.failTask(id, 'provider_error');
    await vi.advanceTimersByTimeAsync(0);
    await mock.callbacksSettled();
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toMatchObject({ task_id: id, status: 'failed', attempts: [{ fail_reason: 'provider_error' }] });
    // The original completion time passes: no second callback.
    await vi.advanceTimersByTimeAsync(10_000);
    await mock.callbacksSettled();
    expect(received).toHaveLength(1);
  });

  it('sends the completed task when completeTask ends it (at once, and once)', async () => {
    const id = await submitImage();
    await vi.advanceTimersByTimeAsync(1500);
    mock.completeTask(id);
    await vi.advanceTimersByTimeAsync(0);
    await mock.callbacksSettled();
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toMatchObject({ task_id: id, status: 'completed', data: [{}] });
    await vi.advanceTimersByTimeAsync(10_000);
    await mock.callbacksSettled();
    expect(received).toHaveLength(1);
  });

  it('sends nothing without callback_url', async () => {
    await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' });
    await vi.advanceTimersByTimeAsync(10_000);
    await mock.callbacksSettled();
    expect(received).toEqual([]);
    expect(mock.callbackDeliveries).toEqual([]);
  });
});
