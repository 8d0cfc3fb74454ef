// The README's "Testing your app" MSW snippet, as written (with its own setupServer and full
// fake timers), so the README stays true.
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { createMockService } from 'omnimedia/testing/msw';

const mock = createMockService({ baseURL: 'https://api.example.test' });
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  mock.reset();
  vi.useRealTimers();
});
afterAll(() => server.close());

it('survives a provider timeout', async () => {
  vi.useFakeTimers(); // the mock's clock follows vitest's fake timers
  const client = new OmniMedia({ apiKey: 'test', baseURL: 'https://api.example.test' });
  mock.failNextAttempt('provider_timeout');
  const waiting = client.videos.generate({ prompt: 'a fox' }).wait();
  await vi.advanceTimersByTimeAsync(60_000);
  expect(await waiting).toMatchObject({ status: 'completed', attempt_count: 2 });
});

it('works with neither MSW nor a server: mock.fetch', async () => {
  vi.useFakeTimers();
  const client = new OmniMedia({ apiKey: 'test', baseURL: mock.baseURL, fetch: mock.fetch });
  const waiting = client.images.generate({ model: 'm', prompt: 'p' }).wait();
  await vi.advanceTimersByTimeAsync(30_000);
  expect((await waiting).status).toBe('completed');
  expect(mock.requests[0]).toMatchObject({ method: 'POST', path: '/v1/images/generations', status: 200 });
});
