import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const BASE_URL = 'https://api.omnimedia.test';
export const API_KEY = 'sk-test-0123456789abcdef';

/** One MSW server per test file; a request nothing handles fails the test. */
export const server = setupServer();

/**
 * The ids of the requests MSW is answering for this file (test/helpers/clock.ts holds fake time
 * still while there are any). Emptied when a file starts listening: the suite's files share a
 * worker's modules (no isolation), so a count a previous file left (a request it aborted gets no
 * `request:end`) would hold the next file's fake time still.
 */
export const requestsInFlight = new Set<string>();
server.events.on('request:start', ({ request, requestId }) => {
  requestsInFlight.add(requestId);
  // A request its caller aborted gets no `request:end` when its handler never answers: left
  // counted, it made settle() give up waiting for every later request of the file, and fake time
  // then jumped over real work (test/ai-sdk/retries.test.ts, 'still pending' under load).
  request.signal.addEventListener('abort', () => requestsInFlight.delete(requestId), { once: true });
});
server.events.on('request:end', ({ requestId }) => void requestsInFlight.delete(requestId));
server.events.on('unhandledException', ({ requestId }) => void requestsInFlight.delete(requestId));

export function useMsw(): typeof server {
  beforeAll(() => {
    requestsInFlight.clear();
    server.listen({ onUnhandledFrame: 'error' });
  });
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}
