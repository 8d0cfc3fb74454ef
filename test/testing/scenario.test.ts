// Scenario controls that change what the mock answers (spec 7's status codes).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockService, type MockService } from 'omnimedia/testing';
import { get, photo, post, upload } from './mock-helpers.ts';

let mock: MockService;
beforeEach(() => {
  mock = createMockService();
});
afterEach(() => mock.close());

const image = () => post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' });
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code;

describe('injected statuses', () => {
  it('rateLimitNext(2): two 429s with Retry-After, then 200; no task is created for them', async () => {
    mock.rateLimitNext(2, { retryAfter: 7 });
    for (let i = 0; i < 2; i++) {
      const response = await image();
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(await errorOf(response)).toBe('rate_limited');
    }
    expect((await image()).status).toBe(200);
    expect(mock.tasks()).toHaveLength(1);
  });

  it('rate limits apply to submissions only by default: uploads and task queries pass', async () => {
    mock.rateLimitNext(1);
    expect((await upload(mock, 'images', photo())).status).toBe(200);
    expect((await get(mock, '/v1/tasks/none')).status).toBe(404);
    expect((await image()).status).toBe(429);
  });

  it('unavailableNext(1): one 503, then 200', async () => {
    mock.unavailableNext(1);
    const response = await image();
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toBe('no_provider_available');
    expect((await image()).status).toBe(200);
  });

  it('unavailableNext can target uploads', async () => {
    mock.unavailableNext(1, { on: ['uploads'] });
    expect((await image()).status).toBe(200);
    expect((await upload(mock, 'images', photo())).status).toBe(503);
    expect((await upload(mock, 'images', photo())).status).toBe(200);
  });

  it('internalErrorAlways: 500 on submissions, uploads and task queries until cleared', async () => {
    const id = ((await (await image()).json()) as { task_id: string }).task_id;
    mock.internalErrorAlways();
    for (let i = 0; i < 3; i++) expect((await image()).status).toBe(500);
    expect((await upload(mock, 'images', photo())).status).toBe(500);
    expect((await get(mock, `/v1/tasks/${id}`)).status).toBe(500);
    mock.clearScenario();
    expect((await get(mock, `/v1/tasks/${id}`)).status).toBe(200);
  });

  it.each([
    [401, 'invalid_api_key'],
    [402, 'insufficient_balance'],
    [403, 'model_not_allowed'],
  ] as const)('forceStatus(%i) answers %s to submissions and uploads, not task queries', async (status, code) => {
    mock.forceStatus(status);
    const response = await image();
    expect(response.status).toBe(status);
    expect(await errorOf(response)).toBe(code);
    expect((await upload(mock, 'images', photo())).status).toBe(status);
    expect((await image()).status).toBe(status);
    expect((await get(mock, '/v1/tasks/none')).status).toBe(404);
  });

  it('forceStatus with a count wears off', async () => {
    mock.forceStatus(402, { count: 1 });
    expect((await image()).status).toBe(402);
    expect((await image()).status).toBe(200);
  });

  it('controls queue in order', async () => {
    mock.rateLimitNext(1).unavailableNext(1);
    expect((await image()).status).toBe(429);
    expect((await image()).status).toBe(503);
    expect((await image()).status).toBe(200);
  });

  it('a missing key is still 401 while a control is queued, and does not consume it', async () => {
    mock.rateLimitNext(1);
    expect((await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' }, { auth: false })).status).toBe(401);
    expect((await image()).status).toBe(429);
  });
});

describe('the request log', () => {
  it('records method, path and status of each request', async () => {
    mock.unavailableNext(1);
    await image();
    await image();
    expect(mock.requests.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: 'POST', path: '/v1/images/generations', status: 503 },
      { method: 'POST', path: '/v1/images/generations', status: 200 },
    ]);
  });
});

describe('model scopes (spec 5.2)', () => {
  it('a key with an explicit scope gets 403 for a model outside it; dynamic-scope keys pass', async () => {
    mock = createMockService({ modelScopes: { 'sk-images-only': ['omni-image'] } });
    const video = { model: 'omni_flash', messages: [{ role: 'user', content: 'x' }] };
    const denied = await post(mock, '/v1/video/generate', video, { auth: 'Bearer sk-images-only' });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: { code: 'model_not_allowed', param: 'model' } });
    expect((await post(mock, '/v1/images/generations', { model: 'omni-image', prompt: 'p' }, { auth: 'Bearer sk-images-only' })).status).toBe(200);
    expect((await post(mock, '/v1/video/generate', video)).status).toBe(202);
    expect(mock.tasks()).toHaveLength(2);
  });
});
