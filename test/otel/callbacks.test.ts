// Callback deliveries as telemetry sees them: one span per delivery a handler takes, its
// outcome (accepted, duplicate, rejected) on the span and in the omnimedia.callbacks counter,
// and the wait a verified callback ended marked as ended by it.
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia, type TaskResult } from 'omnimedia';
import { createMockService, type MswMockService } from 'omnimedia/testing/msw';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { childrenOf, recorder, span, useContextManager, type Recorder } from '../helpers/otel.ts';

const server = useMsw();
let mock: MswMockService;
let rec: Recorder;
let client: OmniMedia;
let disableContext: () => void;
const HOOK = 'https://app.test/hooks/omnimedia';

beforeAll(() => (disableContext = useContextManager('async')));
afterAll(() => disableContext());
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  mock = createMockService({ baseURL: BASE_URL, durations: { pending: 1000, image: 30_000 }, callbackRetryDelays: [] });
  server.use(...mock.handlers);
  rec = recorder();
  client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', telemetry: rec.telemetry, callbackSecret: 'cb-secret-0123456789' });
});
afterEach(() => {
  mock.close();
  vi.useRealTimers();
});

const deliver = async (handle: (r: Request) => Promise<Response>, task: unknown, url = HOOK) =>
  handle(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(task) }));

async function outcomes(): Promise<Record<string, number>> {
  const points = await rec.points('omnimedia.callbacks');
  return Object.fromEntries(points.map((p) => [[p.attributes['omnimedia.callback.outcome'], p.attributes['omnimedia.callback.reason']].filter(Boolean).join(':'), p.value as number]));
}

describe('callback deliveries', () => {
  it('accepted, then the same delivery again as a duplicate; the wait it ended says callback', async () => {
    const handle = client.callbacks.handler(() => {});
    const url = await client.callbacks.url(HOOK);
    const submitted = client.images.generate({ model: 'omni-image', prompt: 'a fox', callback_url: HOOK });
    // Its token is made with crypto.subtle (real time): submitted before fake time moves.
    const { task_id } = await submitted;
    const waiting = submitted.wait().then((t) => t);
    await vi.advanceTimersByTimeAsync(3_500); // one poll: still running
    mock.failTask(task_id, 'provider_error'); // the task ends now (failed), before the next poll
    const done = mock.task(task_id) as unknown as TaskResult;
    expect((await deliver(handle, done, url)).status).toBe(200);
    await expect(waiting).rejects.toMatchObject({ name: 'TaskFailedError' });
    expect((await deliver(handle, done, url)).status).toBe(200);

    const [first, second] = rec.spans().filter((s) => s.name === 'omnimedia.callbacks.handle');
    expect(first!.attributes).toEqual({
      'omnimedia.operation': 'callback',
      'omnimedia.task.id': task_id,
      'omnimedia.task.status': 'failed',
      'omnimedia.callback.outcome': 'accepted',
      'omnimedia.callback.status_code': 200,
    });
    expect(childrenOf(rec.spans(), first!).map((s) => s.name)).toEqual(['GET /v1/tasks/{task_id}']); // its verification
    expect(second!.attributes['omnimedia.callback.outcome']).toBe('duplicate');
    expect(second!.status.code).toBe(SpanStatusCode.UNSET);

    const wait = span(rec.spans(), 'omnimedia.tasks.wait');
    expect(wait.attributes).toMatchObject({ 'omnimedia.wait.ended_by': 'callback', 'omnimedia.task.status': 'failed', 'omnimedia.poll.count': 1, 'error.type': 'TaskFailedError' });
    expect(await outcomes()).toEqual({ accepted: 1, duplicate: 1 });
  });

  it('rejected: a missing token (401) and an unconfirmed status (409); no span error, a reason', async () => {
    const handle = client.callbacks.handler(() => {});
    const { task_id } = await client.images.generate({ model: 'omni-image', prompt: 'a fox', callback_url: HOOK });
    const forged = { task_id, status: 'completed', data: [{ url: 'https://evil.test/x.png' }] };
    expect((await deliver(handle, forged)).status).toBe(401);
    expect((await deliver(handle, forged, await client.callbacks.url(HOOK))).status).toBe(409);
    const spans = rec.spans().filter((s) => s.name === 'omnimedia.callbacks.handle');
    expect(spans.map((s) => [s.attributes['omnimedia.callback.outcome'], s.attributes['omnimedia.callback.status_code'], s.status.code])).toEqual([
      ['rejected', 401, SpanStatusCode.UNSET],
      ['rejected', 409, SpanStatusCode.UNSET],
    ]);
    // The 401 is answered before the body is read: no task on that span.
    expect(spans[0]!.attributes['omnimedia.task.id']).toBeUndefined();
    expect(await outcomes()).toEqual({ 'rejected:unauthorized': 1, 'rejected:unconfirmed': 1 });
  });

  it('onTask throwing: 500, the span in ERROR with the reason as error.type', async () => {
    const handle = client.callbacks.handler(() => {
      throw new Error('database down');
    });
    const { task_id } = await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    expect((await deliver(handle, mock.task(task_id), await client.callbacks.url(HOOK))).status).toBe(500);
    const handled = span(rec.spans(), 'omnimedia.callbacks.handle');
    expect(handled.status.code).toBe(SpanStatusCode.ERROR);
    expect(handled.attributes).toMatchObject({ 'error.type': 'handler_failed', 'omnimedia.callback.outcome': 'rejected' });
  });

  it('a wait ended by news from another wait (not a callback, not its own query) says shared', async () => {
    const { task_id } = await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    const waiting = client.tasks.wait(task_id);
    await vi.advanceTimersByTimeAsync(100); // its first query, at once for a wait by id
    client.taskEvents.publish({ ...(mock.task(task_id) as unknown as TaskResult), status: 'completed' });
    await waiting;
    expect(span(rec.spans(), 'omnimedia.tasks.wait').attributes['omnimedia.wait.ended_by']).toBe('shared');
  });
});
