import { HttpResponse, delay, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  APITimeoutError,
  InternalServerError,
  OmniMedia,
  RateLimitError,
  ServiceUnavailableError,
} from 'omnimedia';
import {
  MAX_RETRY_AFTER_MS,
  isRetryable,
  isTransientInWait,
  isUnusableAnswer,
  parseRetryAfter,
  retryDelay,
  withRetries,
} from '../../src/transport/retry-policy.ts';
import { APIConnectionError, APIError, BadRequestError } from '../../src/errors.ts';
import { mediaBytes } from '../helpers/media-bytes.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { SUBMISSION, json, recordRoute } from '../helpers/wire.ts';

const server = useMsw();
const client = (options: { maxRetries?: number; timeout?: number } = {}) =>
  new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', ...options });
const TASK = { task_id: 'task_1', status: 'pending' };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Settle `promise` while fake time runs forward in small steps (bounded). */
async function settle<T>(promise: Promise<T>, ms = 120_000): Promise<{ value?: T; error?: unknown }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  let done = false;
  void outcome.then(() => (done = true));
  for (let t = 0; t < ms && !done; t += 100) await vi.advanceTimersByTimeAsync(100);
  return outcome;
}

describe('submissions (POST): never billed twice', () => {
  it('429 then 200 → exactly 2 POSTs', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({}, 429), json(SUBMISSION));
    const { value } = await settle(client().images.generate({ model: 'm', prompt: 'p' }));
    expect(value?.task_id).toBe(SUBMISSION.task_id);
    expect(seen).toHaveLength(2);
  });

  it('503 then 200 → exactly 2 POSTs', async () => {
    const seen = recordRoute(server, 'post', '/v1/video/generate', json({}, 503), json({ task_id: 'v' }, 202));
    const { value } = await settle(client().videos.generate({ prompt: 'p' }));
    expect(value?.task_id).toBe('v');
    expect(seen).toHaveLength(2);
  });

  it('the retried POST carries the same body and key', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({}, 503), json(SUBMISSION));
    await settle(client().images.generate({ model: 'm', prompt: 'p', n: 2 }));
    expect(seen.map((r) => r.text)).toEqual([seen[0]?.text, seen[0]?.text]);
    expect(seen.map((r) => r.headers.get('authorization'))).toEqual([`Bearer ${API_KEY}`, `Bearer ${API_KEY}`]);
  });

  it.each([500, 502, 504])('%i → exactly 1 POST', async (status) => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({ error: 'boom' }, status), json(SUBMISSION));
    const { error } = await settle(client().images.generate({ model: 'm', prompt: 'p' }));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).not.toBeInstanceOf(ServiceUnavailableError);
    expect(seen).toHaveLength(1);
  });

  it.each([400, 401, 402, 403, 404])('%i → exactly 1 POST', async (status) => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({}, status), json(SUBMISSION));
    await settle(client().images.generate({ model: 'm', prompt: 'p' }));
    expect(seen).toHaveLength(1);
  });

  it('a timeout after sending → not retried, APITimeoutError', async () => {
    let posts = 0;
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async () => {
        posts++;
        await delay('infinite');
        return HttpResponse.json(SUBMISSION);
      }),
    );
    const { error } = await settle(client({ timeout: 5_000 }).images.generate({ model: 'm', prompt: 'p' }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe('images.generate: no complete answer within 5000 ms');
    expect(posts).toBe(1);
  });

  it('a DNS failure (nothing sent) is retried; the same failure after sending is not', async () => {
    const failing = (code: string) => {
      let calls = 0;
      const fetch = async () => {
        if (++calls === 1) throw new TypeError('fetch failed', { cause: Object.assign(new Error(`socket: ${code}`), { code }) });
        return Response.json(SUBMISSION);
      };
      return { fetch, calls: () => calls };
    };
    const dns = failing('ENOTFOUND');
    const viaDns = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, fetch: dns.fetch });
    expect((await settle(viaDns.images.generate({ model: 'm', prompt: 'p' }))).value?.task_id).toBe(SUBMISSION.task_id);
    expect(dns.calls()).toBe(2);

    const reset = failing('ECONNRESET');
    const viaReset = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, fetch: reset.fetch });
    const { error } = await settle(viaReset.images.generate({ model: 'm', prompt: 'p' }));
    expect((error as Error).message).toBe('images.generate: the connection failed (ECONNRESET)');
    expect(reset.calls()).toBe(1);
  });

  it('maxRetries is respected: 429 forever with maxRetries 3 → 4 POSTs, then RateLimitError', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({}, 429));
    const { error } = await settle(client({ maxRetries: 3 }).images.generate({ model: 'm', prompt: 'p' }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(seen).toHaveLength(4);
  });

  it('maxRetries 0 → 1 POST; the per-call maxRetries overrides the client', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({}, 503));
    await settle(client({ maxRetries: 0 }).images.generate({ model: 'm', prompt: 'p' }));
    expect(seen).toHaveLength(1);
    await settle(client({ maxRetries: 0 }).images.generate({ model: 'm', prompt: 'p' }, { maxRetries: 1 }));
    expect(seen).toHaveLength(3);
  });

  it('Retry-After is honoured: no retry before the delay asked, the retry soon after', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({}, 429, { 'retry-after': '3' }), json(SUBMISSION));
    const result = client().images.generate({ model: 'm', prompt: 'p' });
    await vi.advanceTimersByTimeAsync(2_999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(3_000 * 0.1 + 1); // jitter adds at most 10%
    expect(seen).toHaveLength(2);
    expect((await result).task_id).toBe(SUBMISSION.task_id);
  });

  it('Retry-After as an HTTP date is honoured too', async () => {
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const seen = recordRoute(
      server,
      'post',
      '/v1/images/generations',
      json({}, 503, { 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }),
      json(SUBMISSION),
    );
    const result = client().images.generate({ model: 'm', prompt: 'p' });
    await vi.advanceTimersByTimeAsync(9_900);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_200);
    expect(seen).toHaveLength(2);
    await result;
  });

  it('a Retry-After over 60 s is not slept through: the RateLimitError goes to the caller at once', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({}, 429, { 'retry-after': '120' }), json(SUBMISSION));
    const started = Date.now(); // fake time
    const { error } = await settle(client().images.generate({ model: 'm', prompt: 'p' }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(120);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('an abort during a retry sleep rejects at once with the signal’s reason', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({}, 503, { 'retry-after': '30' }), json(SUBMISSION));
    const controller = new AbortController();
    const result = client().images.generate({ model: 'm', prompt: 'p' }, { signal: controller.signal });
    const outcome = result.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen).toHaveLength(1);
    const reason = new Error('user left');
    controller.abort(reason);
    // No timer advance: the sleep must end on the abort itself.
    expect(await outcome).toBe(reason);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen).toHaveLength(1);
  });

  it('an abort while the request is in flight rejects with the signal’s reason, not retried', async () => {
    let posts = 0;
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async () => {
        posts++;
        await delay('infinite');
        return HttpResponse.json(SUBMISSION);
      }),
    );
    const controller = new AbortController();
    const outcome = client().images.generate({ model: 'm', prompt: 'p' }, { signal: controller.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    const reason = new Error('cancelled by user');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(posts).toBe(1);
  });

  it('the per-call timeout overrides the client’s', async () => {
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async () => {
        await delay('infinite');
        return HttpResponse.json(SUBMISSION);
      }),
    );
    const { error } = await settle(client({ timeout: 60_000 }).images.generate({ model: 'm', prompt: 'p' }, { timeout: 1_500 }));
    expect((error as Error).message).toBe('images.generate: no complete answer within 1500 ms');
  });

  it('an already-aborted signal sends nothing', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json(SUBMISSION));
    const reason = new Error('never mind');
    const error = await client()
      .images.generate({ model: 'm', prompt: 'p' }, { signal: AbortSignal.abort(reason) })
      .catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(seen).toHaveLength(0);
  });
});

describe('uploads (POST): retried on any transient failure, body rebuilt per attempt', () => {
  it('a retried upload sends the whole file both times', async () => {
    const seen = recordRoute(server, 'post', '/v1/uploads/images', json({}, 503), json({ url: 'https://u/1.png' }));
    const bytes = mediaBytes('png', 300_000);
    const { value } = await settle(client().uploads.image(bytes));
    expect(value?.url).toBe('https://u/1.png');
    expect(seen).toHaveLength(2);
    for (const request of seen) {
      const file = request.form?.get('file') as File;
      expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
      expect(file.type).toBe('image/png');
    }
  });

  it('500 on an upload → retried like a task query (uploads are not billed): 3 POSTs with maxRetries 2', async () => {
    const seen = recordRoute(server, 'post', '/v1/uploads/videos', json({}, 500));
    await settle(client().uploads.video(mediaBytes('mp4')));
    expect(seen).toHaveLength(3);
  });
});

describe('the task query (GET): retried on any transient failure', () => {
  it.each([500, 502, 503, 504, 429, 408])('%i then 200 → 2 GETs', async (status) => {
    const seen = recordRoute(server, 'get', '/v1/tasks/:id', json({}, status), json(TASK));
    const { value } = await settle(client().tasks.retrieve('task_1'));
    expect(value).toEqual(TASK);
    expect(seen).toHaveLength(2);
  });

  it('404 → 1 GET', async () => {
    const seen = recordRoute(server, 'get', '/v1/tasks/:id', json({}, 404), json(TASK));
    await settle(client().tasks.retrieve('task_1'));
    expect(seen).toHaveLength(1);
  });

  it('a timeout is retried', async () => {
    let gets = 0;
    server.use(
      http.get(`${BASE_URL}/v1/tasks/:id`, async () => {
        if (++gets === 1) await delay('infinite');
        return HttpResponse.json(TASK);
      }),
    );
    const { value } = await settle(client({ timeout: 2_000 }).tasks.retrieve('task_1'));
    expect(value).toEqual(TASK);
    expect(gets).toBe(2);
  });

  it('a network error is retried', async () => {
    const seen = recordRoute(server, 'get', '/v1/tasks/:id', () => HttpResponse.error(), json(TASK));
    const { value } = await settle(client().tasks.retrieve('task_1'));
    expect(value).toEqual(TASK);
    expect(seen).toHaveLength(2);
  });

  it('maxRetries is respected: 500 forever with maxRetries 2 → 3 GETs', async () => {
    const seen = recordRoute(server, 'get', '/v1/tasks/:id', json({}, 500));
    const { error } = await settle(client().tasks.retrieve('task_1'));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ taskId: 'task_1' });
    expect(seen).toHaveLength(3);
  });

  it('backs off without Retry-After: the first retry waits 375–500 ms', async () => {
    const seen = recordRoute(server, 'get', '/v1/tasks/:id', json({}, 500), json(TASK));
    const result = client().tasks.retrieve('task_1');
    await vi.advanceTimersByTimeAsync(370);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(131);
    expect(seen).toHaveLength(2);
    await result;
  });
});

describe('the policy as functions', () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  const rateLimit = (h: Record<string, string> = {}) => new RateLimitError('429', { status: 429, headers: headers(h) });

  it('parseRetryAfter reads seconds, HTTP dates and retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(headers({ 'retry-after': '2' }), now)).toBe(2_000);
    expect(parseRetryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1_500);
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5_000);
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('retryDelay: at least what was asked, at most 10% more; none beyond 60 s', () => {
    expect(retryDelay(rateLimit({ 'retry-after': '4' }), 'submission', 1, () => 0)).toBe(4_000);
    expect(retryDelay(rateLimit({ 'retry-after': '4' }), 'submission', 1, () => 0.999)).toBeCloseTo(4_399.6);
    expect(retryDelay(rateLimit({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000) }), 'submission', 1, () => 0)).toBe(60_000);
    expect(retryDelay(rateLimit({ 'retry-after': '61' }), 'submission', 1)).toBeUndefined();
  });

  it('retryDelay without Retry-After: 0.5 s doubling, capped at 8 s, jitter down to 75%', () => {
    const top = (n: number) => retryDelay(rateLimit(), 'idempotent', n, () => 1);
    expect([1, 2, 3, 4, 5, 6].map(top)).toEqual([500, 1_000, 2_000, 4_000, 8_000, 8_000]);
    expect(retryDelay(rateLimit(), 'idempotent', 1, () => 0)).toBe(375);
  });

  it('isRetryable: a submission only when the service surely did not take it', () => {
    const refused = new APIConnectionError('x', { cause: new TypeError('fetch failed', { cause: Object.assign(new Error('c'), { code: 'ECONNREFUSED' }) }) });
    const reset = new APIConnectionError('x', { cause: new TypeError('fetch failed', { cause: Object.assign(new Error('c'), { code: 'ECONNRESET' }) }) });
    const timeout = new APITimeoutError('x');
    const e500 = new InternalServerError('x', { status: 500 });
    expect(isRetryable(refused, 'submission')).toBe(true);
    expect(isRetryable(reset, 'submission')).toBe(false);
    expect(isRetryable(timeout, 'submission')).toBe(false);
    expect(isRetryable(e500, 'submission')).toBe(false);
    expect(isRetryable(new ServiceUnavailableError('x', { status: 503 }), 'submission')).toBe(true);
    expect(isRetryable(rateLimit(), 'submission')).toBe(true);
    for (const error of [refused, reset, timeout, e500]) expect(isRetryable(error, 'idempotent')).toBe(true);
    expect(isRetryable(new TypeError('a bug'), 'idempotent')).toBe(false);
  });

  it('parseRetryAfter: a retry-after-ms of 0 is "now"; a negative or infinite one is unreadable, so Retry-After decides', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '0', 'retry-after': '9' }))).toBe(0);
    expect(parseRetryAfter(headers({ 'retry-after-ms': '-5', 'retry-after': '2' }))).toBe(2_000);
    expect(parseRetryAfter(headers({ 'retry-after-ms': 'Infinity', 'retry-after': '2' }))).toBe(2_000);
    expect(parseRetryAfter(headers({ 'retry-after-ms': '-5' }))).toBeUndefined();
  });

  it('parseRetryAfter: seconds are the whole value, trimmed, with any number of decimals', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(headers({ 'retry-after': '1.25' }), now)).toBe(1_250);
    // Headers strip HTTP's whitespace; a no-break space is left to trim().
    expect(parseRetryAfter(headers({ 'retry-after': '\u00a03' }), now)).toBe(3_000);
    expect(parseRetryAfter(headers({ 'retry-after': 'x5' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': '5x' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': '' }), now)).toBeUndefined();
  });

  it('isRetryable: a submission is retried after each of the seven "not sent" connection failures, anywhere in the cause chain', () => {
    const codes = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT'];
    const failed = (code: unknown) => new APIConnectionError('x', { cause: new TypeError('fetch failed', { cause: Object.assign(new Error('c'), { code }) }) });
    for (const code of codes) expect([code, isRetryable(failed(code), 'submission')]).toEqual([code, true]);
    for (const code of ['ECONNRESET', 'EPIPE', '', 61]) expect([code, isRetryable(failed(code), 'submission')]).toEqual([code, false]);
  });

  it('isUnusableAnswer: an APIError with a 2xx status, nothing else', () => {
    const withStatus = (status: number | undefined) => new APIError('x', status === undefined ? {} : { status });
    expect([200, 201, 299].map((status) => isUnusableAnswer(withStatus(status)))).toEqual([true, true, true]);
    expect([199, 300, 404, 500].map((status) => isUnusableAnswer(withStatus(status)))).toEqual([false, false, false, false]);
    expect(isUnusableAnswer(withStatus(undefined))).toBe(false);
    expect(isUnusableAnswer(Object.assign(new Error('not an APIError'), { status: 200 }))).toBe(false);
    expect(isUnusableAnswer(undefined)).toBe(false);
  });

  it('isTransientInWait: whatever a task query retries, and an unusable answer; never a refusal', () => {
    const reset = new APIConnectionError('x', { cause: Object.assign(new Error('c'), { code: 'ECONNRESET' }) });
    for (const error of [rateLimit(), new InternalServerError('x', { status: 500 }), reset, new APIError('not json', { status: 200 })]) {
      expect(isTransientInWait(error)).toBe(true);
    }
    for (const error of [new BadRequestError('x', { status: 400 }), new APIError('x', { status: 404 }), new TypeError('a bug')]) {
      expect(isTransientInWait(error)).toBe(false);
    }
  });

  it('withRetries without onRetry: retries, and answers the attempt that succeeded', async () => {
    const attempts: number[] = [];
    const result = withRetries(
      async (attempt) => {
        attempts.push(attempt);
        if (attempt === 1) throw rateLimit({ 'retry-after-ms': '10' });
        return 'done';
      },
      { kind: 'submission', maxRetries: 1 },
    );
    await vi.advanceTimersByTimeAsync(20);
    expect(await result).toBe('done');
    expect(attempts).toEqual([1, 2]);
  });
});
