// The SDK's promises on a hostile network: real loopback servers that stall, reset, lie and
// answer garbage, with forced full GCs where the fault depends on one (the workers run with
// --expose-gc, see vitest.config.ts). Each test is one finding of the transport-hardening issue.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { APIConnectionError, APIError, APITimeoutError, InternalServerError, OmniMedia, OmniMediaError, ValidationError, WaitTimeoutError } from 'omnimedia';
import type { Fetch } from 'omnimedia/resources';
import { endless, fullGc, stallAfter, useHostileServer } from '../helpers/hostile-server.ts';

const server = await useHostileServer();
const KEY = 'sk-test/with+slash=';
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const COMPLETED = (id: string) => ({ task_id: id, status: 'completed', data: [{ url: 'https://cdn.test/r.png' }] });

/** A fetch that tells when a response's headers have arrived, keeping nothing alive itself. */
function watchedFetch(): { fetch: Fetch; headers: () => Promise<void> } {
  let arrived: (() => void) | undefined;
  let pending = new Promise<void>((resolve) => (arrived = resolve));
  return {
    fetch: async (input, init) => {
      const response = await globalThis.fetch(input, init);
      arrived?.();
      return response;
    },
    headers: () => pending.then(() => void (pending = new Promise<void>((resolve) => (arrived = resolve)))),
  };
}

/** How `promise` settled within `ms` of real time: 'pending' if it did not. */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value?: T; error?: unknown } | 'pending'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms))),
  ]);
  clearTimeout(timer);
  return outcome;
}

function client(options: ConstructorParameters<typeof OmniMedia>[0] = {}): OmniMedia {
  return new OmniMedia({ baseURL: server.url, apiKey: KEY, logLevel: 'off', ...options });
}

describe('1. abort and deadline hold after a full GC', () => {
  it('tasks.retrieve: a body that stalls after the headers, a GC, then abort: rejects at once with the reason', async () => {
    server.behave(stallAfter('{"task_id":"task_1",'));
    const watched = watchedFetch();
    const controller = new AbortController();
    const pending = client({ fetch: watched.fetch }).tasks.retrieve('task_1', { signal: controller.signal });
    await watched.headers();
    await fullGc();
    const reason = new Error('user left');
    controller.abort(reason);
    const outcome = await within(pending, 2_000);
    expect(outcome).toEqual({ error: reason });
  });

  it('files.download to a path: stalled, a GC, then abort: rejects and leaves no .part file', async () => {
    server.behave((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '1000000' });
      res.write(new Uint8Array(1000));
    });
    const dir = await mkdtemp(join(tmpdir(), 'omnimedia-gc-'));
    dirs.push(dir);
    const controller = new AbortController();
    let started!: () => void;
    const bytes = new Promise<void>((resolve) => (started = resolve));
    const pending = client().files.download(`${server.url}/r.png`, {
      to: join(dir, 'r.png'),
      signal: controller.signal,
      onProgress: ({ loaded }) => loaded > 0 && started(),
    });
    await bytes;
    await fullGc();
    controller.abort(new Error('cancel'));
    const outcome = await within(pending, 2_000);
    expect(outcome).not.toBe('pending');
    expect((outcome as { error: Error }).error.message).toBe('cancel');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('tasks.wait: a query whose body stalls, a GC: the wait still ends at its deadline', async () => {
    server.behave(stallAfter('{"task_id":"task_1",'));
    const watched = watchedFetch();
    const settled = within(client({ fetch: watched.fetch }).tasks.wait('task_1', { timeout: 400 }), 3_000);
    await Promise.race([watched.headers(), settled]);
    await fullGc();
    const outcome = await settled;
    expect(outcome).not.toBe('pending');
    expect((outcome as { error: unknown }).error).toBeInstanceOf(WaitTimeoutError);
  });
});

describe('2. timeout bounds the whole exchange, body included', () => {
  it('tasks.retrieve: headers at once, then a stalled body: APITimeoutError at the timeout', async () => {
    server.behave(stallAfter('{"task_id":'));
    const outcome = await within(client({ maxRetries: 0 }).tasks.retrieve('task_1', { timeout: 200 }), 3_000);
    expect(outcome).not.toBe('pending');
    const { error } = outcome as { error: unknown };
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as APITimeoutError).taskId).toBe('task_1');
  });

  it('tasks.wait: a stalled query is timed out and retried, and the next answer ends the wait', async () => {
    server.behave((req, res, n) => {
      if (n === 1) return stallAfter('{"task_id":')(req, res, n);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(COMPLETED('task_1')));
    });
    const outcome = await within(client({ timeout: 200 }).tasks.wait('task_1', { timeout: 10_000 }), 8_000);
    expect(outcome).toMatchObject({ value: { task_id: 'task_1', status: 'completed' } });
    expect(server.requests()).toBe(2);
  });
});

describe('3. every body the SDK reads is capped', () => {
  it('an endless 200 at the task query: APIError past 1 MiB, the connection dropped', async () => {
    server.behave(endless(200, new TextEncoder().encode(' '.repeat(64 * 1024))));
    const outcome = await within(client({ maxRetries: 0 }).tasks.retrieve('task_1'), 5_000);
    expect(outcome).not.toBe('pending');
    const { error } = outcome as { error: APIError };
    expect(error).toBeInstanceOf(APIError);
    expect(error.message).toMatch(/larger than 1 MiB/);
    expect(error.taskId).toBe('task_1');
  });

  it('a Content-Length over the cap is refused before reading the body', async () => {
    server.behave((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 31) });
      res.write('{');
    });
    const outcome = await within(client({ maxRetries: 0 }).tasks.retrieve('task_1'), 3_000);
    expect((outcome as { error: APIError }).error.message).toMatch(/larger than 1 MiB/);
  });

  it('an endless error page: InternalServerError with the first 64 KiB of its body kept', async () => {
    server.behave(endless(500, new TextEncoder().encode('<html>'.repeat(10_000)), { 'content-type': 'text/html' }));
    const outcome = await within(client({ maxRetries: 0 }).tasks.retrieve('task_1'), 5_000);
    const { error } = outcome as { error: InternalServerError };
    expect(error).toBeInstanceOf(InternalServerError);
    expect(typeof error.body).toBe('string');
    expect((error.body as string).length).toBe(64 * 1024);
  });
});

describe('4. another task is never taken for yours', () => {
  it('tasks.retrieve: an answer naming another task_id is an APIError naming both', async () => {
    server.behave((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(COMPLETED('task_OTHER'))));
    const error = await client({ maxRetries: 0 }).tasks.retrieve('task_MINE').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toMatch(/task_MINE/);
    expect((error as APIError).message).toMatch(/task_OTHER/);
    expect((error as APIError).taskId).toBe('task_MINE');
  });

  it('tasks.wait: another task is transient; the wait goes on to its own', async () => {
    server.behave((_req, res, n) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(COMPLETED(n === 1 ? 'task_OTHER' : 'task_MINE'))),
    );
    const task = await client().tasks.wait('task_MINE', { timeout: 10_000 });
    expect(task.task_id).toBe('task_MINE');
    expect(server.requests()).toBe(2);
  });

  it('callbacks.verify: the service answering another task is an error, not a verified task', async () => {
    server.behave((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(COMPLETED('task_OTHER'))));
    const error = await client({ maxRetries: 0 })
      .callbacks.verify(COMPLETED('task_MINE'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OmniMediaError);
    expect((error as OmniMediaError).message).toMatch(/task_OTHER/);
  });
});

describe('5. only OmniMediaErrors leave the SDK', () => {
  it('1 MB of JSON whose data holds 500k invalid entries: APIError, not RangeError', async () => {
    const body = `{"task_id":"task_1","status":"completed","data":[${Array(500_000).fill('1').join(',')}]}`;
    server.behave((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    const error = await client({ maxRetries: 0 }).tasks.retrieve('task_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).taskId).toBe('task_1');
  });

  it('a lone surrogate in a task id: ValidationError, and no request', async () => {
    for (const call of [
      (c: OmniMedia) => c.tasks.retrieve('\uD800'),
      (c: OmniMedia) => c.tasks.wait('task_\uDC00'),
      (c: OmniMedia) => c.tasks.retrieve('x'.repeat(10_000)),
    ]) {
      const error = await call(client()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
    }
    expect(server.requests()).toBe(0);
  });

  it('a forged callback whose task_id is a lone surrogate gets 400, not 500', async () => {
    const handle = client().callbacks.handler(() => {});
    const response = await handle(
      new Request('http://app.test/cb', { method: 'POST', body: '{"task_id":"\\ud800","status":"completed"}' }),
    );
    expect(response.status).toBe(400);
    expect(server.requests()).toBe(0);
  });
});

describe('6. the key never shows in what console.error(err) prints', () => {
  it('a 500 that echoes Authorization in a response header', async () => {
    server.behave((req, res) =>
      res.writeHead(500, { 'content-type': 'application/json', 'x-echo-authorization': String(req.headers.authorization) }).end('{}'),
    );
    const error = await client({ maxRetries: 0 })
      .images.generate({ model: 'omni-image', prompt: 'a cat' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(inspect(error, { depth: 10 })).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect((error as APIError).headers?.get('x-echo-authorization')).toBe('Bearer [redacted]');
  });

  it('a 401 whose JSON writes the key with \\/ escapes', async () => {
    server.behave((req, res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `bad key ${String(req.headers.authorization)}` } }).replaceAll('/', '\\/')),
    );
    const error = await client({ maxRetries: 0 })
      .images.generate({ model: 'omni-image', prompt: 'a cat' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    for (const shown of [inspect(error, { depth: 10 }), JSON.stringify(error), JSON.stringify((error as APIError).body)])
      expect(shown).not.toContain(KEY);
    expect(JSON.stringify(error)).toContain('[redacted]');
  });

  it('a connection error keeps no request (and so no Authorization header) in its causes', async () => {
    server.behave((req) => req.socket.destroy());
    const error = await client({ maxRetries: 0 })
      .images.generate({ model: 'omni-image', prompt: 'a cat' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(inspect(error, { depth: 20 })).not.toContain(KEY);
  });
});

describe('7. the smaller ones', () => {
  it('a redirect loop on a task query is one attempt, not a retried network error', async () => {
    server.behave((req, res) => res.writeHead(302, { location: req.url ?? '/' }).end());
    const error = await client().tasks.retrieve('task_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect((error as APIError).message).toMatch(/redirect/);
    expect(server.requests()).toBeLessThanOrEqual(21);
  });

  it('a redirect loop on a download is one attempt too', async () => {
    server.behave((req, res) => res.writeHead(307, { location: req.url ?? '/' }).end());
    const error = await client().files.download(`${server.url}/r.png`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect(server.requests()).toBeLessThanOrEqual(21);
  });

  it('inside a wait, a non-JSON 200 from a proxy is transient like a 502 page', async () => {
    server.behave((_req, res, n) => {
      if (n === 1) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy</html>');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(COMPLETED('task_1')));
    });
    const task = await client().tasks.wait('task_1', { timeout: 10_000 });
    expect(task.status).toBe('completed');
    expect(server.requests()).toBe(2);
  });

  it('results keep no own __proto__ key inside unknown nested fields', async () => {
    const body = '{"task_id":"task_1","status":"completed","extra":{"__proto__":{"polluted":true},"deep":[{"__proto__":{"x":1}}]}}';
    server.behave((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    const c = client();
    const retrieved = (await c.tasks.retrieve('task_1')) as unknown as { extra: { deep: object[] } };
    const verified = (await c.callbacks.verify(JSON.parse(body) as Record<string, unknown>)) as unknown as { extra: { deep: object[] } };
    const delivered: unknown[] = [];
    c.journal.record({ task_id: 'task_1', kind: 'image_generation', submitted_at: Date.now() }); // one of ours
    const response = await c.callbacks.handler((task) => void delivered.push(task))(
      new Request('http://app.test/cb', { method: 'POST', body }),
    );
    expect(response.status).toBe(200);
    for (const task of [retrieved, verified, delivered[0] as typeof retrieved]) {
      expect(Object.hasOwn(task.extra, '__proto__')).toBe(false);
      expect(Object.hasOwn(task.extra.deep[0] as object, '__proto__')).toBe(false);
      expect((Object.assign({}, task.extra) as { polluted?: unknown }).polluted).toBeUndefined();
    }
  });

  it('an upload whose connection resets after sending is retried (uploads are not billed)', async () => {
    const record = { url: 'https://up.test/a.png', filename: 'a.png', content_type: 'image/png', bytes: 10, width: 1, height: 1 };
    server.behave((req, res, n) => {
      if (n === 1) return void req.once('data', () => req.socket.destroy());
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(record)));
    });
    const png = await import('../helpers/fixtures.ts').then((f) => f.fixture('tiny.png').path);
    const upload = await client().uploads.image(png);
    expect(upload.url).toBe(record.url);
    expect(server.requests()).toBe(2);
  });

  it('an upload reset after sending says how many bytes went out', async () => {
    server.behave((req) => void req.once('data', () => req.socket.destroy()));
    const png = await import('../helpers/fixtures.ts').then((f) => f.fixture('tiny.png').path);
    const error = await client({ maxRetries: 0 })
      .uploads.image(png)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/connection was reset after \d[\d,]* bytes/);
    expect((error as Error).message).not.toMatch(/could not reach/);
  });
});

