// A callback is acknowledged only once it was handled. The claim of a delivery has three
// states: free, in progress, done. A redelivery while onTask runs gets a non-2xx with
// Retry-After (the service delivers again); one after onTask threw runs it again; one after it
// returned is a 200 duplicate. The journal entry is cleared once onTask handled the result.
// Real HTTP (a fetch-style and a Node receiver), in one process; test/redis/ does the same on
// a real redis-server.
import type { RequestListener } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OmniMedia, type TaskResult } from 'omnimedia';
import { MemoryDedupeStore } from 'omnimedia/coordination';
import { startCallbackService, type CallbackService } from '../helpers/callback-service.ts';
import { fetchReceiver, nodeReceiver, post, type Receiver } from '../helpers/receivers.ts';

const silent = { error() {}, warn() {}, info() {}, debug() {} };
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

/** A gate onTask waits on, and a way to see it was called. */
function gate() {
  let open!: (fail?: Error) => void;
  const calls: TaskResult[] = [];
  let waiting = new Promise<Error | undefined>((resolve) => (open = resolve));
  return {
    calls,
    open: (fail?: Error) => open(fail),
    reset: () => void (waiting = new Promise((resolve) => (open = resolve))),
    onTask: async (task: TaskResult) => {
      calls.push(task);
      const fail = await waiting;
      if (fail) throw fail;
    },
  };
}

async function setUp(style: 'fetch' | 'node') {
  const service: CallbackService = await startCallbackService();
  opened.push(service);
  const client = new OmniMedia({ apiKey: 'sk-claims-0123456789abcdef', baseURL: service.baseURL, maxRetries: 0, logger: silent });
  const handler = gate();
  const receiver: Receiver =
    style === 'fetch' ? await fetchReceiver(client.callbacks.handler(handler.onTask)) : await nodeReceiver(client.callbacks.nodeHandler(handler.onTask) as RequestListener);
  opened.unshift(receiver);
  const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
  const task = service.complete(task_id);
  return { client, handler, deliver: () => post(receiver.url, JSON.stringify(task)), task_id };
}

describe.each(['fetch', 'node'] as const)('callback claims: free, in progress, done (%s)', (style) => {
  it('a redelivery during a slow onTask is not acknowledged: non-2xx with Retry-After (was 200 "duplicate")', async () => {
    const { handler, deliver } = await setUp(style);
    const first = deliver();
    await expect.poll(() => handler.calls.length).toBe(1);
    const again = await deliver();
    expect(again.status).toBe(503);
    expect(again.body).toEqual({ ok: false, reason: 'in_progress' });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(handler.calls).toHaveLength(1); // onTask is not run twice at once
    handler.open();
    expect((await first).status).toBe(200);
  });

  it('after onTask threw, the next delivery runs it again; after it returned, a repeat is a 200 duplicate', async () => {
    const { handler, deliver } = await setUp(style);
    const first = deliver();
    await expect.poll(() => handler.calls.length).toBe(1);
    expect((await deliver()).status).toBe(503); // in progress
    handler.open(new Error('db down'));
    expect((await first).status).toBe(500); // the service will deliver again...
    handler.reset();
    const second = deliver();
    await expect.poll(() => handler.calls.length).toBe(2); // ...and this time onTask runs
    handler.open();
    expect((await second).body).toEqual({ ok: true });
    expect(await deliver()).toMatchObject({ status: 200, body: { ok: true, duplicate: true } });
    expect(handler.calls).toHaveLength(2);
  });

  it('the journal entry is cleared once onTask handled the result, not before (was: before onTask ran)', async () => {
    const { client, handler, deliver, task_id } = await setUp(style);
    const ids = async () => (await client.journal.list()).map((e) => e.task_id);
    expect(await ids()).toEqual([task_id]);
    const first = deliver();
    await expect.poll(() => handler.calls.length).toBe(1);
    expect(await ids()).toEqual([task_id]); // onTask still runs
    handler.open(new Error('db down'));
    await first;
    expect(await ids()).toEqual([task_id]); // onTask threw: the result is not handled
    handler.reset();
    const second = deliver();
    await expect.poll(() => handler.calls.length).toBe(2);
    handler.open();
    await second;
    expect(await ids()).toEqual([]);
  });
});

describe('MemoryDedupeStore', () => {
  it('has three states: free (true), in progress, done (false); release frees, complete makes done', () => {
    const store = new MemoryDedupeStore();
    expect(store.claim('k')).toBe(true);
    expect(store.claim('k')).toBe('in_progress');
    store.release('k');
    expect(store.claim('k')).toBe(true);
    store.complete('k');
    expect(store.claim('k')).toBe(false);
  });
});
