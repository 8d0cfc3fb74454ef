import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, OmniMedia, type Logger } from 'omnimedia';
import { createLogger } from '../../src/internal/logger.ts';
import { createRedactor } from '../../src/internal/redact.ts';
import { mediaBytes } from '../helpers/media-bytes.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { SUBMISSION, json, recordRoute } from '../helpers/wire.ts';

const server = useMsw();

afterEach(() => {
  vi.useRealTimers();
});

/** Everything a logger was given, serialized, so a key anywhere in it shows. */
function capture() {
  const out: string[] = [];
  const sink = (level: string) => (message: string, ...args: unknown[]) =>
    out.push(`${level}: ${message} ${args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : JSON.stringify(a))).join(' ')}`);
  const logger: Logger = { error: sink('error'), warn: sink('warn'), info: sink('info'), debug: sink('debug') };
  return { out, logger };
}

/** Every string an error exposes: message, stack, String(), its body and headers as JSON. */
function everythingIn(error: unknown): string {
  const e = error as Error & { body?: unknown; headers?: Headers };
  return [e.message, e.stack, String(e), JSON.stringify(e.body), JSON.stringify([...(e.headers?.entries() ?? [])])].join('\n');
}

describe('the API key never leaks', () => {
  it('a 401 whose JSON body echoes the key: message and body are scrubbed', async () => {
    recordRoute(
      server,
      'post',
      '/v1/images/generations',
      HttpResponse.json({ error: { message: `invalid key ${API_KEY}`, key: API_KEY } }, { status: 401 }),
    );
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
    const error = await client.images.generate({ model: 'm', prompt: 'p' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(everythingIn(error)).not.toContain(API_KEY);
    expect((error as AuthenticationError).message).toBe('images.generate failed: 401 Unauthorized: invalid key [redacted]');
    expect((error as AuthenticationError).body).toEqual({ error: { message: 'invalid key [redacted]', key: '[redacted]' } });
  });

  it('a 401 whose text body echoes the Authorization header: scrubbed', async () => {
    recordRoute(server, 'post', '/v1/uploads/images', HttpResponse.text(`rejected header: Bearer ${API_KEY}`, { status: 401 }));
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
    const error = await client.uploads.image(mediaBytes('png')).catch((e: unknown) => e);
    expect(everythingIn(error)).not.toContain(API_KEY);
    expect((error as AuthenticationError).body).toBe('rejected header: Bearer [redacted]');
  });

  it('a connection error whose cause quotes the key: the message is scrubbed', async () => {
    const fetch = async () => {
      throw new TypeError(`fetch failed: proxy refused Bearer ${API_KEY}`);
    };
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, fetch, maxRetries: 0 });
    const error = await client.images.generate({ model: 'm', prompt: 'p' }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('APIConnectionError');
    expect((error as Error).message).not.toContain(API_KEY);
    expect(String(error)).not.toContain(API_KEY);
  });

  it('debug logging of a whole flow (retry, success, failure, upload, query) never shows the key', async () => {
    vi.useFakeTimers();
    const echo = { error: `key ${API_KEY} is rate limited` };
    recordRoute(server, 'post', '/v1/images/generations', json(echo, 429, { 'retry-after': '1' }), json(SUBMISSION), json(echo, 401));
    recordRoute(server, 'post', '/v1/uploads/images', json({ url: 'https://u/1.png', note: API_KEY }));
    recordRoute(server, 'get', '/v1/tasks/:id', json(echo, 503), json({ task_id: 't', status: 'completed' }));
    const { out, logger } = capture();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logger, logLevel: 'debug' });

    const flow = (async () => {
      await client.images.generate({ model: 'm', prompt: 'p' });
      // An app logging the caught error through the client's logger.
      await client.images.generate({ model: 'm', prompt: 'p' }).catch((e: unknown) => client.logger.error('caught', e, { e }));
      await client.uploads.image(mediaBytes('png'));
      await client.tasks.retrieve('t');
    })();
    let done = false;
    void flow.finally(() => (done = true));
    for (let i = 0; i < 200 && !done; i++) await vi.advanceTimersByTimeAsync(100);
    await flow;

    expect(out.length).toBeGreaterThanOrEqual(7);
    const lines = out;
    expect(lines.join('\n')).toMatch(/retry 1 in \d+ ms after: images\.generate failed: 429/);
    expect(lines.join('\n')).not.toContain(API_KEY);
  });
});

// Issue 30, defect 11: a service error that echoes the request body put the callback token in
// the info retry line and in APIError.message.
describe('the callback token never leaks', () => {
  it('a service that echoes the submitted body (503, then 400): no token in the retry line, the message or the body', async () => {
    let answers = 0;
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async ({ request }) => {
        const sent = await request.text();
        answers++;
        return HttpResponse.json({ error: { message: `rejected ${sent}`, request: JSON.parse(sent) as unknown } }, answers === 1 ? { status: 503, headers: { 'retry-after': '0' } } : { status: 400 });
      }),
    );
    const { out, logger } = capture();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, callbackSecret: 'callback-secret-of-the-app', logger, logLevel: 'info' });
    const error = await client.images.generate({ model: 'm', prompt: 'p', callback_url: 'https://app.example/cb?x=1' }).catch((e: unknown) => e);
    expect(answers).toBe(2);
    const token = new URL(await client.callbacks.url('https://app.example/cb')).searchParams.get('omnimedia_token')!;
    expect(token.length).toBeGreaterThan(20);
    const everything = [...out, everythingIn(error), JSON.stringify(error)].join('\n');
    expect(out.join('\n')).toMatch(/retry 1 in \d+ ms after: images\.generate failed: 503/);
    expect(everything).toContain('omnimedia_token=[redacted]');
    expect(everything).not.toContain(token);
    expect(everything).not.toContain('callback-secret-of-the-app');
  });
});

describe('a short key (a test key such as "test") is redacted where it could be the key, and only there', () => {
  it('tasks.retrieve("latest-task") keeps its id in the message; an echoed "Bearer test" is still scrubbed', async () => {
    recordRoute(server, 'get', '/v1/tasks/:id', HttpResponse.json({ error: 'no task latest-task for Bearer test' }, { status: 404 }));
    const client = new OmniMedia({ apiKey: 'test', baseURL: BASE_URL });
    const error = await client.tasks.retrieve('latest-task').catch((e: unknown) => e);
    expect((error as Error).message).toBe('tasks.retrieve(latest-task) failed: 404 Not Found: no task latest-task for Bearer [redacted]');
    expect((error as { body?: unknown }).body).toEqual({ error: 'no task latest-task for Bearer [redacted]' });
  });

  it('as a token of its own (quotes, spaces, =, :, -) it is scrubbed; inside a word it is not', () => {
    const { out, logger } = capture();
    const log = createLogger(logger, 'debug', createRedactor(['test']));
    log.warn('key=test "test" test: contest testing tested latest-task my-test');
    expect(out[0]).toContain('key=[redacted] "[redacted]" [redacted]: contest testing tested latest-task my-[redacted]');
  });

  it('a key of 16 characters or more is scrubbed wherever it shows, even glued to other characters', () => {
    const { out, logger } = capture();
    const log = createLogger(logger, 'debug', createRedactor([API_KEY]));
    log.warn(`x${API_KEY}y and ${API_KEY}`);
    expect(out[0]).not.toContain(API_KEY);
    expect(out[0]).toContain('x[redacted]y and [redacted]');
  });
});

describe('createLogger', () => {
  it('drops lines below the level and scrubs messages, strings, errors and objects', () => {
    const { out, logger } = capture();
    const log = createLogger(logger, 'info', createRedactor(['sk-secret']));
    log.debug('hidden sk-secret');
    log.info('shown sk-secret', 'arg sk-secret', new Error('err sk-secret'), { nested: { k: 'sk-secret' } }, 42);
    expect(out).toHaveLength(1);
    expect(out[0]).not.toContain('sk-secret');
    expect(out[0]).toContain('[omnimedia] shown [redacted]');
    expect(out[0]).toContain('{"nested":{"k":"[redacted]"}}');
    expect(out[0]).toContain('42');
  });

  it('off logs nothing', () => {
    const { out, logger } = capture();
    const log = createLogger(logger, 'off', createRedactor(['k']));
    log.error('x');
    expect(out).toEqual([]);
  });
});
