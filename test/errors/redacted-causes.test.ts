// One redactor pass over every error that leaves the SDK: its message, its cause chain (each
// link's message, stack and own fields) and so its inspected and JSON forms hold no URL
// password, no API key and no callback token (issue 39 item 9: a fetch whose error named a URL
// with `user:pass@` left the password in `util.inspect(error)` through the error's cause).
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CallbackError, OmniMedia, OmniMediaError, type TaskResult } from 'omnimedia';

const PASSWORD = 'hunter2-very-secret';
const API_KEY = 'sk-redacted-causes-0123456789abcdef';
const TOKEN = 'tok-abcdef0123456789abcdef';
const CREDENTIALED = `https://user:${PASSWORD}@cdn.example/x.png`;

/** Every form of an error a log may hold. */
const forms = (error: unknown) => [String(error), inspect(error, { depth: Infinity }), JSON.stringify(error)].join('\n');
const expectClean = (error: unknown) => {
  const text = forms(error);
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(TOKEN);
};

/** A fetch that fails as a proxy-aware or logging wrapper may: the URL, the key and a token in its message, its cause, a field. */
function throwingFetch(): typeof fetch {
  return async () => {
    const socket = Object.assign(new Error(`connect ECONNREFUSED via ${CREDENTIALED} (Authorization: Bearer ${API_KEY})`), {
      code: 'ECONNREFUSED',
      url: `${CREDENTIALED}?omnimedia_token=${TOKEN}`,
    });
    throw new TypeError(`fetch failed for ${CREDENTIALED}`, { cause: socket });
  };
}

describe('an error that leaves the SDK holds no password, key or token', () => {
  const client = new OmniMedia({ apiKey: API_KEY, baseURL: 'https://api.example', fetch: throwingFetch(), maxRetries: 0 });

  it('files.download(url) whose fetch throws: message, cause chain, inspected form, JSON', async () => {
    const error = await client.files.download('https://cdn.example/x.png').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OmniMediaError);
    expectClean(error);
    // The chain keeps what callers read: the class and the socket's code.
    const cause = (error as Error).cause as TypeError & { cause: { code: string } };
    expect(cause).toBeInstanceOf(TypeError);
    expect(cause.cause.code).toBe('ECONNREFUSED');
    expect(cause.message).toContain('https://[redacted]@cdn.example/x.png');
  });

  it('files.download(task) on a result URL with user:pass@', async () => {
    const task = { task_id: 'task_c', status: 'completed', data: [{ url: CREDENTIALED }] } as TaskResult;
    expectClean(await client.files.download(task).catch((e: unknown) => e));
  });

  it('a request to the service whose fetch throws (the key too)', async () => {
    const error = await client.tasks.retrieve('task_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OmniMediaError);
    expectClean(error);
  });

  it('every class, made anywhere: the message and a cause that is an error, a string or plain data', () => {
    for (const cause of [new Error(`at ${CREDENTIALED}?omnimedia_token=${TOKEN}`), `at ${CREDENTIALED}`, { url: CREDENTIALED }]) {
      expectClean(new OmniMediaError(`failed at ${CREDENTIALED}`, { cause }));
      expectClean(new CallbackError('invalid_body', `body from ${CREDENTIALED}`, { cause }));
    }
  });

  it('a frozen cause is copied, not changed', () => {
    const frozen = Object.freeze(new Error(`at ${CREDENTIALED}`));
    const error = new OmniMediaError('failed', { cause: frozen });
    expectClean(error);
    expect(frozen.message).toContain(PASSWORD);
  });

  it('an error with nothing to remove keeps its cause as it is', () => {
    const cause = new Error('plain');
    expect(new OmniMediaError('failed', { cause }).cause).toBe(cause);
  });
});
