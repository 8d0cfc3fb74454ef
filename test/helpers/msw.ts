import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const BASE_URL = 'https://api.omnimedia.test';
export const API_KEY = 'sk-test-0123456789abcdef';

/** One MSW server per test file; a request nothing handles fails the test. */
export const server = setupServer();

export function useMsw(): typeof server {
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}
