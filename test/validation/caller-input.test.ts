// Issue 30, defect 8: caller input that is not plain data (a throwing getter, a hostile Proxy, a
// cycle, a BigInt) gave raw errors from the public methods, or an APIConnectionError ("the
// connection failed (Converting circular structure to JSON...)"): a local mistake told as a
// network fault. Now it is read once, at the door, into plain data: a ValidationError naming the
// field, before any request.
import { describe, expect, it } from 'vitest';
import { APIConnectionError, OmniMedia, ValidationError, type ValidationIssue } from 'omnimedia';
import { HttpClient } from '../../src/transport/http-client.ts';
import { createLogger } from '../../src/internal/logger.ts';
import { createRedactor } from '../../src/internal/redact.ts';
import { readCallerInput } from '../../src/validation/caller-input.ts';
import { mediaBytes } from '../helpers/media-bytes.ts';

const boom = () => {
  throw new Error('boom');
};
const throwingGetter = () => Object.defineProperty({ model: 'omni-image' }, 'prompt', { enumerable: true, get: boom });
const hostileProxy = () => new Proxy({}, { get: boom, ownKeys: boom, getPrototypeOf: boom, getOwnPropertyDescriptor: boom, has: boom });
const cyclic = () => {
  const value: Record<string, unknown> = { model: 'omni-image', prompt: 'a fox' };
  value.self = value;
  return value;
};

/** A client whose every request is counted (and answered 500: none should be sent). */
function counting() {
  const sent = { count: 0 };
  const client = new OmniMedia({
    apiKey: 'sk-test-0123456789abcdef',
    baseURL: 'https://api.input.test',
    logLevel: 'off',
    fetch: async () => {
      sent.count++;
      return new Response('{}', { status: 500 });
    },
  });
  return { client, sent };
}

async function refused(call: () => PromiseLike<unknown> | unknown): Promise<readonly ValidationIssue[]> {
  let error: unknown;
  try {
    await call();
  } catch (caught) {
    error = caught;
  }
  expect(error, String(error)).toBeInstanceOf(ValidationError);
  return (error as ValidationError).issues;
}

describe('readCallerInput: read once, into plain data', () => {
  it('copies data, keeps behaviour (functions, class instances, objects with methods) as given', () => {
    const signal = new AbortController().signal;
    const store = { claim: () => true, release: () => {} };
    const blob = new Blob(['x']);
    const onProgress = () => {};
    const input = { a: [1, { b: 'c' }], signal, store, blob, onProgress, gone: undefined };
    const read = readCallerInput(input, 'x');
    expect(read).toEqual({ a: [1, { b: 'c' }], signal, store, blob, onProgress });
    expect(read).not.toBe(input);
    expect(read.a).not.toBe(input.a);
    expect(read.signal).toBe(signal);
    expect(read.store).toBe(store);
    expect(read.blob).toBe(blob);
  });

  it('a getter runs once: the value checked is the value sent', () => {
    let reads = 0;
    const input = Object.defineProperty({}, 'prompt', { enumerable: true, get: () => (reads++ === 0 ? 'first' : 'later') });
    const read = readCallerInput(input, 'x') as { prompt: string };
    expect([read.prompt, read.prompt, reads]).toEqual(['first', 'first', 1]);
  });

  it.each([
    ['a throwing getter', throwingGetter(), 'prompt', 'cannot be read (boom)'],
    ['a hostile Proxy', { model: 'm', image: hostileProxy() }, 'image', 'cannot be read (boom)'],
    ['a revoked Proxy', { options: { nested: (() => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy; })() } }, 'options.nested', expect.stringMatching(/^cannot be read/)],
    ['a cycle', cyclic(), 'self', 'holds itself (a cycle), which JSON cannot carry'],
    ['a BigInt', { extra: { n: [1, 2n] } }, 'extra.n[1]', 'holds a bigint, which JSON cannot carry'],
    ['a symbol', { s: Symbol('s') }, 's', 'holds a symbol, which JSON cannot carry'],
    ['over 1 MiB', { prompt: 'x'.repeat(1_100_000) }, 'prompt', expect.stringMatching(/^is over 1 MiB as JSON/)],
  ])('%s is a ValidationError naming the field', (_name, input, path, message) => {
    let error: unknown;
    try {
      readCallerInput(input, 'images.generate params');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path, message }]);
    expect((error as Error).message).toMatch(/^Invalid images\.generate params: /);
  });

  it('a record (params, options) is read as its own fields whatever its class; a value (a file) is kept', () => {
    class Options {
      timeout = 5;
    }
    expect(readCallerInput(new Options(), 'x')).toEqual({ timeout: 5 });
    const file = new Blob(['x']);
    expect(readCallerInput(file, 'x', 'value')).toBe(file);
  });
});

describe('every public method reads its input at the door: a ValidationError naming the field, nothing sent', () => {
  it('images.generate, images.edit, videos.generate, videos.edit', async () => {
    const { client, sent } = counting();
    expect(await refused(() => client.images.generate(throwingGetter() as never))).toEqual([{ path: 'prompt', message: 'cannot be read (boom)' }]);
    expect(await refused(() => client.images.generate({ model: 'm', prompt: 'p' }, hostileProxy() as never))).toEqual([{ path: '', message: 'cannot be read (boom)' }]);
    expect(await refused(() => client.images.edit({ model: 'm', prompt: 'p', image: hostileProxy() as never }))).toEqual([{ path: 'image', message: 'cannot be read (boom)' }]);
    expect(await refused(() => client.videos.generate({ prompt: 'p', extra: 10n } as never))).toEqual([{ path: 'extra', message: 'holds a bigint, which JSON cannot carry' }]);
    expect(await refused(() => client.videos.edit(cyclic() as never))).toEqual([{ path: 'self', message: 'holds itself (a cycle), which JSON cannot carry' }]);
    expect(sent.count).toBe(0);
  });

  it('uploads.image and uploads.video: a hostile file or options', async () => {
    const { client, sent } = counting();
    expect(await refused(() => client.uploads.image(hostileProxy() as never))).toEqual([{ path: '', message: 'cannot be read (boom)' }]);
    expect(await refused(() => client.uploads.image(mediaBytes('png'), throwingGetter() as never))).toEqual([{ path: 'prompt', message: 'cannot be read (boom)' }]);
    const stream = new ReadableStream({ pull: boom });
    expect(await refused(() => client.uploads.video(stream))).toEqual([{ path: 'file', message: 'cannot be read: boom' }]);
    expect(sent.count).toBe(0);
  });

  it('files.download, tasks.retrieve, tasks.wait, tasks.watch', async () => {
    const { client, sent } = counting();
    expect(await refused(() => client.files.download(hostileProxy() as never))).toEqual([{ path: '', message: 'cannot be read (boom)' }]);
    expect(await refused(() => client.files.download({ task_id: 't', data: [{ url: 'https://x.test/a.png' }] }, cyclic() as never))).toEqual([
      { path: 'self', message: 'holds itself (a cycle), which JSON cannot carry' },
    ]);
    expect(await refused(() => client.tasks.retrieve('t', hostileProxy() as never))).toEqual([{ path: '', message: 'cannot be read (boom)' }]);
    const waitError = await client.tasks.wait('t', { timeout: 10n } as never).catch((e: unknown) => e);
    expect(waitError).toMatchObject({ name: 'ValidationError', taskId: 't', issues: [{ path: 'timeout', message: 'holds a bigint, which JSON cannot carry' }] });
    expect(await refused(async () => {
      for await (const task of client.tasks.watch('t', throwingGetter() as never)) void task;
    })).toEqual([{ path: 'prompt', message: 'cannot be read (boom)' }]);
    expect(sent.count).toBe(0);
  });

  it('callbacks.handler, callbacks.verify, callbacks.url, new OmniMedia', async () => {
    const { client, sent } = counting();
    expect(await refused(() => client.callbacks.handler(async () => {}, hostileProxy() as never))).toEqual([{ path: '', message: 'cannot be read (boom)' }]);
    expect(await refused(() => client.callbacks.handler('not a function' as never))).toEqual([{ path: 'onTask', message: 'must be a function' }]);
    expect(await refused(() => client.callbacks.verify({ task_id: 't', status: 'completed' }, { signal: hostileProxy() } as never))).toEqual([
      { path: 'signal', message: 'cannot be read (boom)' },
    ]);
    expect(await refused(() => client.callbacks.url(hostileProxy() as never))).toEqual([{ path: 'url', message: 'must be an absolute URL' }]);
    expect(await refused(() => new OmniMedia({ baseURL: 'https://api.input.test', defaultHeaders: cyclic() as never }))).toEqual([
      { path: 'defaultHeaders.self', message: 'holds itself (a cycle), which JSON cannot carry' },
    ]);
    expect(sent.count).toBe(0);
  });
});

describe('the HTTP layer: a body that cannot be serialised is never a connection error', () => {
  const http = (fetch: () => Promise<Response>) => {
    const redactor = createRedactor();
    return new HttpClient({ baseURL: 'https://api.input.test/', apiKey: 'k', timeout: 1000, maxRetries: 0, fetch, defaultHeaders: {}, logger: createLogger(console, 'off', redactor), redactor });
  };

  it('a cycle or a BigInt in a JSON body: ValidationError naming it, nothing sent', async () => {
    let sent = 0;
    const client = http(async () => (sent++, new Response('{}')));
    const body: Record<string, unknown> = { a: 1n };
    const error = await client.request({ method: 'POST', path: 'v1/x', auth: true, retry: 'submission', json: body, what: 'images.generate' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect((error as ValidationError).issues).toEqual([{ path: 'a', message: 'holds a bigint, which JSON cannot carry' }]);
    expect(sent).toBe(0);
  });

  it('a TypeError of our own, after the answer (a parse that throws), is not a connection error', async () => {
    const client = http(async () => new Response('{"task_id":"t"}'));
    const error = await client
      .request({ method: 'GET', path: 'v1/tasks/t', auth: false, retry: 'idempotent', what: 'tasks.retrieve', parse: () => (null as unknown as { x: () => void }).x() })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('APIError');
    expect(error).not.toBeInstanceOf(APIConnectionError);
  });
});
