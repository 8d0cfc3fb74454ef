import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  InsufficientBalanceError,
  InternalServerError,
  NotFoundError,
  OmniMedia,
  OmniMediaError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
} from 'omnimedia';
import { apiErrorFromResponse } from '../../src/transport/error-mapping.ts';
import { createRedactor } from '../../src/internal/redact.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { recordRoute } from '../helpers/wire.ts';

const server = useMsw();
const client = () => new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, maxRetries: 0 });
const submit = () => client().images.generate({ model: 'm', prompt: 'p' }).catch((e: unknown) => e);

afterEach(() => {
  vi.useRealTimers();
});

describe('status → error class (one mapper)', () => {
  it.each([
    [400, BadRequestError],
    // A body over a limit (the proxy's 413 carries the issues, as a 400 does).
    [413, BadRequestError],
    [401, AuthenticationError],
    [402, InsufficientBalanceError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, ServiceUnavailableError],
    [504, InternalServerError],
    [409, APIError],
    [418, APIError],
  ] as const)('%i → %o', async (status, ErrorClass) => {
    const body = { error: { message: `said ${status}`, code: 'x' } };
    recordRoute(server, 'post', '/v1/images/generations', HttpResponse.json(body, { status, headers: { 'x-request-id': `req_${status}` } }));
    const error = await submit();
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(OmniMediaError);
    expect((error as Error).name).toBe(ErrorClass.name);
    expect(error).toMatchObject({ status, body, requestId: `req_${status}` });
    expect((error as APIError).headers?.get('x-request-id')).toBe(`req_${status}`);
    expect((error as Error).message).toContain(`said ${status}`);
  });

  it('503 is an InternalServerError too (a subclass)', async () => {
    recordRoute(server, 'post', '/v1/images/generations', HttpResponse.text('', { status: 503 }));
    expect(await submit()).toBeInstanceOf(InternalServerError);
  });

  it('keeps a plain-text body as text, and an empty body as undefined', async () => {
    recordRoute(
      server,
      'post',
      '/v1/images/generations',
      HttpResponse.text('upstream exploded', { status: 500 }),
      new HttpResponse(null, { status: 402 }),
    );
    const text = await submit();
    expect(text).toMatchObject({ status: 500, body: 'upstream exploded', message: 'images.generate failed: 500 Internal Server Error: upstream exploded' });
    const empty = await submit();
    expect(empty).toMatchObject({ status: 402, body: undefined, message: 'images.generate failed: 402 Payment Required' });
  });

  it('keeps a JSON body raw, whatever its shape', async () => {
    const body = { detail: [{ loc: ['body', 'size'], msg: 'bad' }], trace: 'abc' };
    recordRoute(server, 'post', '/v1/images/generations', HttpResponse.json(body, { status: 400 }));
    const error = await submit();
    expect((error as APIError).body).toEqual(body);
  });

  it('reads requestId from request-id when x-request-id is absent, and leaves it undefined with neither', async () => {
    recordRoute(
      server,
      'post',
      '/v1/images/generations',
      HttpResponse.json({}, { status: 400, headers: { 'request-id': 'r-2' } }),
      HttpResponse.json({}, { status: 400 }),
    );
    expect(await submit()).toMatchObject({ requestId: 'r-2' });
    expect(await submit()).toMatchObject({ requestId: undefined });
  });

  it('429: retryAfter in seconds from Retry-After seconds', async () => {
    recordRoute(server, 'post', '/v1/images/generations', HttpResponse.json({ error: 'slow down' }, { status: 429, headers: { 'retry-after': '7' } }));
    expect(await submit()).toMatchObject({ name: 'RateLimitError', status: 429, retryAfter: 7 });
  });

  it('429: retryAfter in seconds from a Retry-After HTTP date', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    recordRoute(
      server,
      'post',
      '/v1/images/generations',
      HttpResponse.json({}, { status: 429, headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' } }),
    );
    expect(await submit()).toMatchObject({ retryAfter: 30 });
  });

  it('429 without Retry-After: retryAfter undefined', async () => {
    recordRoute(server, 'post', '/v1/images/generations', HttpResponse.json({}, { status: 429 }));
    const error = await submit();
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeUndefined();
  });

  it('a 2xx body that is not JSON is an APIError with the status and the text', async () => {
    recordRoute(server, 'post', '/v1/images/generations', HttpResponse.text('<html>gateway</html>', { status: 200 }));
    const error = await submit();
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 200, body: '<html>gateway</html>', message: 'images.generate: the service answered 200 with a body that is not JSON' });
  });

  it('the mapper is a pure function of the response', () => {
    const error = apiErrorFromResponse(403, 'Forbidden', new Headers({ 'x-request-id': 'q' }), '{"error":"scope"}', {
      what: 'videos.generate',
      taskId: 't9',
      redactor: createRedactor(),
    });
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ message: 'videos.generate failed: 403 Forbidden: scope', taskId: 't9', requestId: 'q', body: { error: 'scope' } });
  });
});
