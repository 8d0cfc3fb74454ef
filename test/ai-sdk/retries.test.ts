// Our retry rules hold through the AI SDK's own retry loop: whatever `maxRetries` the app gives
// the AI SDK, a submission the service may have taken is sent once, a 429 is retried by the
// client alone (the loops never multiply), our typed errors reach the app, and an abort ends
// a generation at once.
import { experimental_generateVideo as generateVideo, generateImage } from 'ai';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { APITimeoutError, InternalServerError, OmniMediaError, RateLimitError, ServiceUnavailableError } from 'omnimedia';
import { BASE_URL, failure, requests, run, useAiSdk } from './setup.ts';

const ctx = useAiSdk();

/** Every way this suite submits: an image, a video (the client's wait), a video in the AI SDK's poll mode. */
const SUBMISSIONS = [
  { name: 'generateImage', path: '/v1/images/generations', go: (maxRetries: number, omni = ctx.omni, abortSignal?: AbortSignal) => generateImage({ model: omni.image('omni-image'), prompt: 'a fox', maxRetries, ...(abortSignal ? { abortSignal } : {}) }) },
  { name: 'generateVideo', path: '/v1/video/generate', go: (maxRetries: number, omni = ctx.omni, abortSignal?: AbortSignal) => generateVideo({ model: omni.video('omni_flash'), prompt: 'a fox', maxRetries, ...(abortSignal ? { abortSignal } : {}) }) },
  {
    name: 'generateVideo, poll mode',
    path: '/v1/video/generate',
    go: (maxRetries: number, omni = ctx.omni, abortSignal?: AbortSignal) =>
      generateVideo({ model: omni.video('omni_flash'), prompt: 'a fox', maxRetries, poll: { intervalMs: 2_000 }, ...(abortSignal ? { abortSignal } : {}) }),
  },
] as const;

describe.each(SUBMISSIONS)('$name through the AI SDK’s retry loop', ({ path, go }) => {
  it('a submission answered 500 is sent exactly once, with the AI SDK’s maxRetries at 5', async () => {
    ctx.mock.internalErrorAlways({ on: ['submissions'] });
    const error = await failure(go(5));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(500);
    expect(requests(ctx.mock, 'POST', path)).toHaveLength(1);
  });

  it('a submission that timed out after it was sent is sent exactly once', async () => {
    let posts = 0;
    ctx.server.use(
      http.post(`${BASE_URL}${path}`, async ({ request }) => {
        posts++;
        await request.text(); // the whole body reached the service
        return new Promise<never>(() => {}); // and it never answers
      }),
    );
    const error = await failure(go(5, ctx.provider({ timeout: 2_000 })));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(posts).toBe(1);
  });

  it('429 then an accept is two POSTs: the client retried, the AI SDK saw no error', async () => {
    ctx.mock.rateLimitNext(1, { retryAfter: 1 });
    await run<unknown>(go(5));
    expect(requests(ctx.mock, 'POST', path).map((r) => r.status)).toEqual([429, path.startsWith('/v1/video') ? 202 : 200]);
  });

  it('the loops do not multiply: 503s past the client’s retries reach the app after 1 + maxRetries POSTs', async () => {
    ctx.mock.unavailableNext(10, { retryAfter: 1 });
    const error = await failure(go(5, ctx.provider({ maxRetries: 2 })));
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(requests(ctx.mock, 'POST', path)).toHaveLength(3);

    ctx.mock.reset();
    ctx.mock.rateLimitNext(10, { retryAfter: 1 });
    const limited = await failure(go(5, ctx.provider({ maxRetries: 0 })));
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBe(1);
    expect(requests(ctx.mock, 'POST', path)).toHaveLength(1);
  });

  it('an abort ends the wait at once, and nothing is queried after it', async () => {
    const controller = new AbortController();
    const generating = go(2, ctx.omni, controller.signal);
    const settled = Promise.resolve(generating).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await run(new Promise((resolve) => setTimeout(resolve, 4_000))); // submitted, waiting
    expect(requests(ctx.mock, 'POST', path)).toHaveLength(1);
    const reads = requests(ctx.mock, 'GET', '/v1/tasks/').length;
    controller.abort(new Error('user left'));
    // No timer needs to fire for the generation to end.
    const outcome = await settled;
    expect(outcome).toMatchObject({ message: expect.stringMatching(/user left|abort/i) });
    await run(new Promise((resolve) => setTimeout(resolve, 60_000)));
    expect(requests(ctx.mock, 'GET', '/v1/tasks/')).toHaveLength(reads);
  });
});

it('errors after a submission keep the task id', async () => {
  ctx.server.use(http.get(`${BASE_URL}/files/results/*`, () => HttpResponse.text('gone', { status: 404 })));
  const error = await failure(generateImage({ model: ctx.omni.image('omni-image'), prompt: 'a fox' }));
  expect(error).toBeInstanceOf(OmniMediaError);
  expect((error as OmniMediaError).taskId).toBe((ctx.mock.tasks()[0] as { task_id: string }).task_id);
});
