// The suite's MSW helper: the requests it counts as in flight are the ones MSW is still
// answering, so that fake time (test/helpers/clock.ts) stands still for them and only them.
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE_URL, requestsInFlight, useMsw } from './msw.ts';

const server = useMsw();

describe('requests in flight', () => {
  it('counts a request while MSW answers it, and not after', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.use(http.get(`${BASE_URL}/held`, async () => (await held, HttpResponse.json({ ok: true }))));
    const answer = fetch(`${BASE_URL}/held`);
    await expect.poll(() => requestsInFlight.size).toBe(1);
    release();
    expect((await answer).status).toBe(200);
    await expect.poll(() => requestsInFlight.size).toBe(0);
  });

  it('forgets a request its caller aborted, though its handler never answers', async () => {
    server.use(http.get(`${BASE_URL}/never`, () => new Promise<never>(() => {})));
    const controller = new AbortController();
    const answer = fetch(`${BASE_URL}/never`, { signal: controller.signal });
    await expect.poll(() => requestsInFlight.size).toBe(1);
    controller.abort();
    await expect(answer).rejects.toThrow();
    await expect.poll(() => requestsInFlight.size).toBe(0);
  });
});
