import type { RequestListener } from 'node:http';
import type express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CallbackError, OmniMedia, type CallbackHandlerOptions, type TaskResult, ValidationError } from 'omnimedia';
import { CALLBACK_TOKEN_PARAM } from '../../src/callbacks/token.ts';
import { MemoryDedupeStore, type CallbackDedupeStore } from 'omnimedia/coordination';
import { addTask, startCallbackService, type CallbackService } from '../helpers/callback-service.ts';
import { expressReceiver, fastifyReceiver, fetchReceiver, nodeReceiver, post, type Receiver } from '../helpers/receivers.ts';

const API_KEY = 'sk-test-callbacks';
const silent = { error() {}, warn() {}, info() {}, debug() {} };

type Style = 'fetch' | 'node' | 'express-none' | 'express-json' | 'express-raw' | 'express-text' | 'fastify';
const STYLES: Style[] = ['fetch', 'node', 'express-none', 'express-json', 'express-raw', 'express-text', 'fastify'];

let service: CallbackService;
let receivers: Receiver[] = [];

beforeEach(async () => {
  service = await startCallbackService();
});
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  await service.close();
});

function makeClient(extra: ConstructorParameters<typeof OmniMedia>[0] = {}): OmniMedia {
  return new OmniMedia({ apiKey: API_KEY, baseURL: service.baseURL, maxRetries: 0, logger: silent, ...extra });
}

async function mount(style: Style, client: OmniMedia, onTask: (task: TaskResult) => unknown, options?: CallbackHandlerOptions): Promise<Receiver> {
  let receiver: Receiver;
  if (style === 'fetch') receiver = await fetchReceiver(client.callbacks.handler(onTask, options));
  else {
    const handle = client.callbacks.nodeHandler(onTask, options);
    if (style === 'node') receiver = await nodeReceiver(handle as RequestListener);
    else if (style === 'fastify') receiver = await fastifyReceiver(handle);
    else receiver = await expressReceiver(handle as express.RequestHandler, style.slice('express-'.length) as 'none');
  }
  receivers.push(receiver);
  return receiver;
}

/** Record everything published on the client's task events for `taskId`. */
function published(client: OmniMedia, taskId: string): TaskResult[] {
  const seen: TaskResult[] = [];
  client.taskEvents.subscribe(taskId, (task) => seen.push(task));
  return seen;
}

const pending = (id: string) => addTask(service, { task_id: id, status: 'pending', model: 'm', created_at: 1 });

describe.each(STYLES)('callback handler through real HTTP (%s)', (style) => {
  it('accepts a real delivery: the service\'s version reaches onTask and the task events, once', async () => {
    const client = makeClient();
    const received: TaskResult[] = [];
    const receiver = await mount(style, client, (task) => void received.push(task));
    const submission = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    const events = published(client, submission.task_id);
    service.complete(submission.task_id);
    const answer = await service.deliver(submission.task_id);
    expect(answer).toEqual({ status: 200, body: { ok: true } });
    expect(received).toEqual([service.tasks.get(submission.task_id)]);
    expect(received[0]?.status).toBe('completed');
    // Verified: the handler read the task back from the service.
    expect(service.queries).toEqual([submission.task_id]);
    expect(events).toEqual(received);
  });

  it('answers 400 to a malformed body and 400 to a body that is not a task, and calls nothing', async () => {
    const client = makeClient();
    const received: TaskResult[] = [];
    const receiver = await mount(style, client, (task) => void received.push(task));
    const events = published(client, 't1');
    // express.json() and Fastify answer malformed JSON themselves (their own 400), before our handler runs.
    if (style !== 'express-json' && style !== 'fastify') {
      const malformed = await post(receiver.url, '{"task_id":"t1","status":');
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual({ ok: false, reason: 'invalid_json' });
    }
    const shape = await post(receiver.url, '{"task_id":"t1","status":5}');
    expect(shape).toMatchObject({ status: 400, body: { ok: false, reason: 'invalid_shape' } });
    expect(received).toEqual([]);
    expect(events).toEqual([]);
    expect(service.queries).toEqual([]);
  });

  it('answers 500 when onTask throws, and runs onTask again on the redelivery', async () => {
    const client = makeClient();
    let calls = 0;
    const receiver = await mount(style, client, () => {
      calls++;
      if (calls === 1) throw new Error('database down');
    });
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    service.complete(task_id);
    expect(await service.deliver(task_id)).toEqual({ status: 500, body: { ok: false, reason: 'handler_failed' } });
    expect(await service.deliver(task_id)).toEqual({ status: 200, body: { ok: true } });
    expect(calls).toBe(2);
  });

  it('with a callbackSecret: 401 without the right token, 200 with it', async () => {
    const client = makeClient({ callbackSecret: 'hunter2-but-longer' });
    const received: TaskResult[] = [];
    const receiver = await mount(style, client, (task) => void received.push(task));
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    const events = published(client, task_id);
    service.complete(task_id);
    const body = JSON.stringify(service.tasks.get(task_id));
    expect(await post(receiver.url, body)).toMatchObject({ status: 401, body: { ok: false, reason: 'unauthorized' } });
    expect(await post(`${receiver.url}?${CALLBACK_TOKEN_PARAM}=guess`, body)).toMatchObject({ status: 401 });
    expect(received).toEqual([]);
    expect(events).toEqual([]);
    expect(service.queries).toEqual([]);
    // The service posts to the URL the client sent, which carries the token.
    expect(await service.deliver(task_id)).toEqual({ status: 200, body: { ok: true } });
    expect(received.map((t) => t.status)).toEqual(['completed']);
    expect(events.map((t) => t.status)).toEqual(['completed']);
  });

  if (!style.startsWith('express-') || style === 'express-none') {
    it('answers 413 to a body over the cap, declared or streamed, without reading it all', async () => {
      const client = makeClient();
      const received: TaskResult[] = [];
      const receiver = await mount(style, client, (task) => void received.push(task), { maxBytes: 64 * 1024 });
      const big = JSON.stringify({ task_id: 't', status: 'completed', pad: 'x'.repeat(200 * 1024) });
      expect(await post(receiver.url, big)).toMatchObject({ status: 413, body: { ok: false, reason: 'too_large' } });
      // No content-length: a stream that would go on for 64 MiB.
      let sent = 0;
      const endless = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 64 * 1024 * 1024) return controller.close();
          sent += 16 * 1024;
          controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
        },
      });
      const answer = await post(receiver.url, endless).catch((error: unknown) => ({ status: 0, body: String(error), headers: new Headers() }));
      // Either the 413 arrives, or the receiver closed the connection mid-upload; never a hang or a 200.
      expect([0, 413]).toContain(answer.status);
      expect(sent).toBeLessThan(64 * 1024 * 1024);
      expect(received).toEqual([]);
    });
  }
});

describe('callback handler behaviour', () => {
  it('answers 409 to a forged "completed" for a task the service still has pending, and tells no one', async () => {
    const client = makeClient();
    const received: TaskResult[] = [];
    const receiver = await mount('node', client, (task) => void received.push(task));
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    const events = published(client, task_id);
    const forged = JSON.stringify({ task_id, status: 'completed', data: [{ url: 'https://evil.test/x.png' }] });
    expect(await post(receiver.url, forged)).toMatchObject({ status: 409, body: { ok: false, reason: 'unconfirmed' } });
    expect(received).toEqual([]);
    expect(events).toEqual([]);
  });

  it('answers 400 unknown_task to a delivery for a task the service does not know', async () => {
    const client = makeClient();
    const receiver = await mount('fetch', client, () => {});
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    service.tasks.delete(task_id); // ours, as the journal knows it; gone from the service
    const answer = await post(receiver.url, JSON.stringify({ task_id, status: 'completed' }));
    expect(answer).toMatchObject({ status: 400, body: { ok: false, reason: 'unknown_task' } });
  });

  it('answers 500 verify_failed when the service cannot be reached, so the delivery comes again', async () => {
    const client = new OmniMedia({ baseURL: 'http://127.0.0.1:9', maxRetries: 0, logger: silent });
    client.journal.record({ task_id: 't', kind: 'image_generation', submitted_at: Date.now() }); // ours
    const receiver = await mount('node', client, () => {});
    const answer = await post(receiver.url, JSON.stringify({ task_id: 't', status: 'completed' }));
    expect(answer).toMatchObject({ status: 500, body: { ok: false, reason: 'verify_failed' } });
  });

  it('dedupes a repeated delivery of the same task and status (200, onTask once, published once)', async () => {
    const client = makeClient();
    const received: TaskResult[] = [];
    const receiver = await mount('fetch', client, (task) => void received.push(task));
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    const events = published(client, task_id);
    service.complete(task_id);
    expect(await service.deliver(task_id)).toEqual({ status: 200, body: { ok: true } });
    expect(await service.deliver(task_id)).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(received).toHaveLength(1);
    expect(events).toHaveLength(1);
  });

  it('with dedupe: false, every delivery reaches onTask', async () => {
    const client = makeClient();
    let calls = 0;
    const receiver = await mount('node', client, () => void calls++, { dedupe: false });
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    service.complete(task_id);
    await service.deliver(task_id);
    await service.deliver(task_id);
    expect(calls).toBe(2);
  });

  it('uses a store given as dedupe, shared by two handlers as by two instances', async () => {
    const keys = new Map<string, number>();
    const store: CallbackDedupeStore = {
      claim: async (key) => (keys.has(key) ? false : (keys.set(key, 1), true)),
      release: async (key) => void keys.delete(key),
    };
    const client = makeClient();
    let calls = 0;
    const a = await mount('node', client, () => void calls++, { dedupe: store });
    const b = await mount('fetch', client, () => void calls++, { dedupe: store });
    const task = service.complete((await client.images.generate({ model: 'm', prompt: 'p' })).task_id);
    expect((await post(a.url, JSON.stringify(task))).body).toEqual({ ok: true });
    expect((await post(b.url, JSON.stringify(task))).body).toEqual({ ok: true, duplicate: true });
    expect(calls).toBe(1);
    expect([...keys.keys()]).toEqual([`${task.task_id}\u0000completed`]);
  });

  it('tells a store that has complete() when onTask has finished, and not when it threw', async () => {
    const done: string[] = [];
    const released: string[] = [];
    const store: CallbackDedupeStore = { claim: () => true, release: (key) => void released.push(key), complete: (key) => void done.push(key) };
    const client = makeClient();
    let fail = true;
    const receiver = await mount('node', client, () => {
      if (fail) throw new Error('db down');
    }, { dedupe: store });
    const task = service.complete((await client.images.generate({ model: 'm', prompt: 'p' })).task_id);
    const key = `${task.task_id}\u0000completed`;
    expect((await post(receiver.url, JSON.stringify(task))).status).toBe(500);
    expect([done, released]).toEqual([[], [key]]);
    fail = false;
    expect((await post(receiver.url, JSON.stringify(task))).status).toBe(200);
    expect(done).toEqual([key]);
  });

  it('keeps the in-memory dedupe record bounded', () => {
    const store = new MemoryDedupeStore(3);
    for (const key of ['a', 'b', 'c', 'd']) {
      expect(store.claim(key)).toBe(true);
      store.complete(key);
    }
    expect(store.size).toBe(3);
    expect(store.claim('d')).toBe(false);
    expect(store.claim('a')).toBe(true); // the oldest done claim was forgotten
  });

  it('with verify: false and a secret, a delivery with its own submission’s token skips the service and still publishes', async () => {
    const client = makeClient({ callbackSecret: 's3cret' });
    const received: TaskResult[] = [];
    const receiver = await mount('fetch', client, (task) => void received.push(task), { verify: false });
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    const events = published(client, task_id);
    const body = { task_id, status: 'completed', data: [{ url: 'https://files.test/a.png' }] };
    expect((await service.deliver(task_id, body)).status).toBe(200); // to the callback_url the task was submitted with
    expect(received).toEqual([body]);
    expect(events).toEqual([body]);
    expect(service.queries).toEqual([]);
  });

  it('with verify: false and no secret, hands onTask the posted task of its own submission but publishes nothing', async () => {
    const client = makeClient();
    const received: TaskResult[] = [];
    const receiver = await mount('node', client, (task) => void received.push(task), { verify: false });
    const { task_id } = await client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    const events = published(client, task_id);
    expect((await post(receiver.url, JSON.stringify({ task_id, status: 'completed' }))).status).toBe(200);
    expect(received).toHaveLength(1);
    expect(events).toEqual([]);
  });

  it('accepts the old secret\'s URLs after a rotation', async () => {
    const before = makeClient({ callbackSecret: 'old-secret' });
    const after = makeClient({ callbackSecret: ['new-secret', 'old-secret'] });
    const received: TaskResult[] = [];
    const receiver = await mount('node', after, (task) => void received.push(task));
    const { task_id } = await before.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    service.complete(task_id);
    expect((await service.deliver(task_id)).status).toBe(200);
    const onlyNew = makeClient({ callbackSecret: 'new-secret' });
    const strict = await mount('node', onlyNew, () => {});
    const oldUrl = (await before.callbacks.url(strict.url));
    expect((await post(oldUrl, JSON.stringify(service.tasks.get(task_id)))).status).toBe(401);
    expect(received).toHaveLength(1);
  });

  it('refuses a bad maxBytes when the handler is made, and warns about verify: false without a secret', () => {
    const warnings: string[] = [];
    const client = makeClient({ logger: { ...silent, warn: (m: string) => void warnings.push(m) } });
    expect(() => client.callbacks.handler(() => {}, { maxBytes: 0 })).toThrow(/maxBytes: must be a positive integer/);
    expect(() => client.callbacks.nodeHandler(() => {}, { maxBytes: 1.5 })).toThrow(ValidationError);
    client.callbacks.handler(() => {}, { verify: false });
    expect(warnings).toEqual([expect.stringContaining('verify: false and no callbackSecret')]);
    makeClient({ callbackSecret: 's', logger: { ...silent, warn: (m: string) => void warnings.push(m) } }).callbacks.handler(() => {}, { verify: false });
    expect(warnings).toHaveLength(1);
  });

  it('answers 405 to anything but POST', async () => {
    const client = makeClient();
    const fetchStyle = await mount('fetch', client, () => {});
    const nodeStyle = await mount('node', client, () => {});
    for (const url of [fetchStyle.url, nodeStyle.url]) {
      const response = await fetch(url);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      await response.body?.cancel();
    }
  });

  it('a Node handler reads a body a parser left in req.body, even without Express', async () => {
    const client = makeClient();
    const received: TaskResult[] = [];
    const handle = client.callbacks.nodeHandler((task) => void received.push(task), { verify: false });
    client.journal.record({ task_id: 't', kind: 'image_generation', submitted_at: Date.now() }); // ours
    const answers: unknown[] = [];
    const res = { statusCode: 0, setHeader() {}, end: (body: string) => void answers.push(body) };
    await handle({ method: 'POST', url: '/cb', headers: {}, body: { task_id: 't', status: 'completed' }, readableEnded: true }, res);
    expect(res.statusCode).toBe(200);
    expect(received).toEqual([{ task_id: 't', status: 'completed' }]);
    // Consumed, and nothing kept: a clear 400 rather than an empty parse.
    await handle({ method: 'POST', url: '/cb', headers: {}, readableEnded: true }, res);
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(answers[1] as string)).toEqual({ ok: false, reason: 'invalid_body' });
  });
});

describe('what a callback may deliver: a task of this client or its fleet, confirmed by the service unless verify: false', () => {
  const evil = { status: 'completed', data: [{ url: 'https://evil.example/payload.png' }] };

  it('verify: false with a secret: task A’s leaked URL cannot forge task B’s result (was: onTask and B’s wait got evil.example)', async () => {
    const client = makeClient({ callbackSecret: 's3cret' });
    const received: TaskResult[] = [];
    const receiver = await mount('node', client, (task) => void received.push(task), { verify: false });
    const a = await client.images.generate({ model: 'm', prompt: 'a', callback_url: receiver.url });
    const b = client.images.generate({ model: 'm', prompt: 'b', callback_url: receiver.url });
    const { task_id: bId } = await b;
    const waitB = b.wait({ timeout: 3_000, initialDelay: 60_000 }).then((task) => ({ task }), (error: unknown) => ({ error }));
    const leakedA = service.submissions.find((s) => s.body.prompt === 'a')?.body.callback_url as string;
    const forged = await post(leakedA, JSON.stringify({ task_id: bId, ...evil }));
    expect(forged).toMatchObject({ status: 409, body: { reason: 'unconfirmed' } }); // read from the service: B is pending
    expect(received).toEqual([]);
    // A's own URL still delivers A (as posted: its own token vouches for it).
    service.complete(a.task_id);
    expect((await service.deliver(a.task_id)).status).toBe(200);
    expect(received.map((t) => t.task_id)).toEqual([a.task_id]);
    expect(await waitB).toMatchObject({ error: { name: 'WaitTimeoutError' } }); // never resolved with the forgery
  });

  it('defaults (no secret): a real completed task of another account is refused, 403 foreign_task (was: onTask ran)', async () => {
    const client = makeClient();
    const received: TaskResult[] = [];
    const receiver = await mount('fetch', client, (task) => void received.push(task));
    const theirs = addTask(service, { task_id: 'task_theirs', status: 'completed', model: 'm', created_at: 1, data: [{ url: 'https://evil.example/x.png' }] });
    expect(await post(receiver.url, JSON.stringify(theirs))).toMatchObject({ status: 403, body: { ok: false, reason: 'foreign_task' } });
    expect(received).toEqual([]);
    expect(service.queries).toEqual([]); // refused before any read
  });

  it('a delivery after the wait saw the result is still this client’s: the journal remembers what was submitted', async () => {
    const client = makeClient();
    const received: TaskResult[] = [];
    const receiver = await mount('node', client, (task) => void received.push(task));
    const submitted = client.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    const { task_id } = await submitted;
    service.complete(task_id);
    await submitted.wait({ initialDelay: 0 });
    expect(await client.tasks.pending()).toEqual([]);
    expect((await service.deliver(task_id)).status).toBe(200);
    expect(received.map((t) => t.task_id)).toEqual([task_id]);
  });

  it('another process (or this one after a restart) without a shared journal: with the secret, delivered and read from the service even under verify: false; without one, refused', async () => {
    const submitter = makeClient({ callbackSecret: 's3cret' });
    const received: TaskResult[] = [];
    const restarted = makeClient({ callbackSecret: 's3cret' });
    const receiver = await mount('fetch', restarted, (task) => void received.push(task), { verify: false });
    const { task_id } = await submitter.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    service.complete(task_id);
    expect(await service.deliver(task_id, { task_id, ...evil })).toMatchObject({ status: 200 });
    expect(received).toEqual([service.tasks.get(task_id)]); // the service's version, not the posted one
    expect(service.queries).toEqual([task_id]);

    const noSecret = makeClient();
    const other = await mount('node', noSecret, (task) => void received.push(task));
    const lone = await makeClient().images.generate({ model: 'm', prompt: 'p', callback_url: other.url });
    service.complete(lone.task_id);
    expect(await service.deliver(lone.task_id)).toMatchObject({ status: 403, body: { reason: 'foreign_task' } });
    expect(received).toHaveLength(1);
  });

  it('a journal that cannot answer (an outage): degraded as an outage is, the delivery is read from the service, even under verify: false', async () => {
    const hung = () => new Promise<never>(() => {});
    const withSecret = makeClient({ callbackSecret: 's3cret' });
    const received: TaskResult[] = [];
    const receiver = await mount('node', withSecret, (task) => void received.push(task), { verify: false });
    const { task_id } = await withSecret.images.generate({ model: 'm', prompt: 'p', callback_url: receiver.url });
    (withSecret.journal as { find: unknown }).find = hung;
    service.complete(task_id);
    expect((await service.deliver(task_id, { task_id, ...evil })).status).toBe(200);
    expect(received).toEqual([service.tasks.get(task_id)]); // the service's version

    const plain = makeClient();
    const receiver2 = await mount('fetch', plain, (task) => void received.push(task));
    const mine = await plain.images.generate({ model: 'm', prompt: 'p' });
    (plain.journal as { find: unknown }).find = () => {
      throw new Error('journal down');
    };
    expect((await post(receiver2.url, JSON.stringify(service.complete(mine.task_id)))).status).toBe(200);
    expect(received).toHaveLength(2);
  }, 10_000);
});

describe('callbacks.verify', () => {
  it('returns the service\'s version: a forged "completed" for a pending task comes back pending', async () => {
    const client = makeClient();
    pending('t_forged');
    const task = await client.callbacks.verify(JSON.stringify({ task_id: 't_forged', status: 'completed', data: [{ url: 'https://evil.test' }] }));
    expect(task).toEqual({ task_id: 't_forged', status: 'pending', model: 'm', created_at: 1 });
  });

  it('throws CallbackError unknown_task for an id the service does not know, with the id', async () => {
    const client = makeClient();
    const error = (await client.callbacks.verify({ task_id: 'ghost', status: 'completed' }).catch((e) => e)) as CallbackError;
    expect(error).toBeInstanceOf(CallbackError);
    expect(error.reason).toBe('unknown_task');
    expect(error.taskId).toBe('ghost');
  });

  it('refuses a malformed body before asking the service', async () => {
    const client = makeClient();
    const error = (await client.callbacks.verify('not json').catch((e) => e)) as CallbackError;
    expect(error.reason).toBe('invalid_json');
    expect(service.queries).toEqual([]);
  });

  it('parse is parseCallback', async () => {
    const client = makeClient();
    expect(await client.callbacks.parse('{"task_id":"a","status":"pending"}')).toEqual({ task_id: 'a', status: 'pending' });
  });
});
