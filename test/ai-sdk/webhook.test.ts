// experimental_generateVideo with the AI SDK's `webhook` option: the service's completion
// callback ends the generation once one read of the task confirms it; the client's polling is
// the fallback; a forged or foreign delivery never becomes the result.
import { experimental_generateVideo as generateVideo } from 'ai';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { TaskFailedError } from 'omnimedia';
import { createMockService } from 'omnimedia/testing/msw';
import { BASE_URL, failure, isMp4, requests, run, useAiSdk } from './setup.ts';

const ctx = useAiSdk();

interface Delivery {
  headers: Record<string, string>;
  body: unknown;
}

/**
 * What an app's `webhook` factory does: a one-off endpoint (here an MSW route) whose first
 * POST resolves `received`, as the AI SDK's docs show it with a route and a promise.
 */
function webhookEndpoint() {
  let made = 0;
  const urls: string[] = [];
  const factory = async () => {
    const url = `https://app.example.test/hooks/video-${++made}`;
    urls.push(url);
    let deliver!: (delivery: Delivery) => void;
    const received = new Promise<Delivery>((resolve) => (deliver = resolve));
    ctx.server.use(
      http.post(url, async ({ request }) => {
        deliver({ headers: Object.fromEntries(request.headers), body: await request.json() });
        return HttpResponse.json({ ok: true });
      }),
    );
    return { url, received: received as Promise<{ headers: Record<string, string>; body: never }> };
  };
  return { factory, urls };
}

/** The task the mock is running, once there is one. */
async function submittedTask(): Promise<{ task_id: string }> {
  for (let turn = 0; turn < 100 && ctx.mock.tasks().length === 0; turn++) await new Promise((resolve) => setImmediate(resolve));
  return ctx.mock.tasks()[0] as { task_id: string };
}

describe('experimental_generateVideo with webhook', () => {
  it.each([
    ['', {}],
    [' (with a callbackSecret: the URL carries its token)', { callbackSecret: 'webhook-secret' }],
  ])('the callback ends it%s: its URL is the task’s callback_url, one read verifies it, doStatus reads nothing more', async (_label, options) => {
    const hook = webhookEndpoint();
    let endedAt = 0;
    const omni = ctx.provider(options);
    const generating = generateVideo({ model: omni.video('omni_flash'), prompt: 'a fox', duration: 10, webhook: hook.factory }).then((result) => {
      endedAt = Date.now();
      return result;
    });
    const result = await run(generating);
    const [delivery] = ctx.mock.callbackDeliveries;
    expect(delivery).toMatchObject({ url: 'callbackSecret' in options ? expect.stringMatching(/\/hooks\/video-1\?omnimedia_token=/) : hook.urls[0], status: 200 });
    expect(isMp4(result.video.uint8Array)).toBe(true);
    expect(result.providerMetadata.omnimedia).toMatchObject({ task_id: delivery!.taskId, status: 'completed' });
    // After the delivery: the verification, and nothing else (no doStatus read, no poll).
    const reads = requests(ctx.mock, 'GET', '/v1/tasks/');
    expect(reads.filter((r) => r.at >= delivery!.at)).toHaveLength(1);
    // Before it, the fallback polled at the client's cadence: a few reads over the 11 s task.
    expect(reads.filter((r) => r.at < delivery!.at).length).toBeLessThanOrEqual(4);
    // The generation ended with the callback, not at the next poll (13 s).
    expect(endedAt - delivery!.at).toBeLessThan(1_000);
    expect(result.warnings).toEqual([]);
  });

  it('a forged "completed" for the running task is not the result: verified as still running, ignored; polling ends it', async () => {
    const hook = webhookEndpoint();
    const generating = generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', webhook: hook.factory });
    const task = await submittedTask();
    // Someone who learned the URL posts first, with a result of their own.
    const forged = await fetch(hook.urls[0]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task_id: task.task_id, status: 'completed', data: [{ url: 'https://evil.example/owned.mp4' }] }),
    });
    expect(forged.status).toBe(200);
    const result = await run(generating);
    expect(isMp4(result.video.uint8Array)).toBe(true);
    expect((result.providerMetadata.omnimedia as { videos: { url: string }[] }).videos[0]!.url).toMatch(/^https:\/\/api\.omnimedia\.test\/files\/results\//);
    // The client's handler refused it: the service does not confirm "completed".
    expect(result.warnings).toEqual([{ type: 'other', message: expect.stringMatching(/not used \(409 unconfirmed\)/) }]);
  });

  it('a delivery about another task, or not a task at all, is ignored the same way', async () => {
    for (const body of [{ task_id: 'task_someone_else', status: 'completed' }, { hello: 'world' }]) {
      ctx.mock.reset();
      const hook = webhookEndpoint();
      const generating = generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', webhook: hook.factory });
      await submittedTask();
      await fetch(hook.urls[0]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const result = await run(generating);
      expect(isMp4(result.video.uint8Array)).toBe(true);
      expect(result.warnings).toEqual([{ type: 'other', message: expect.stringMatching(/webhook delivery was not used/) }]);
    }
  });

  it('a failed task’s callback ends it with TaskFailedError', async () => {
    ctx.mock.failNextTask('provider_error');
    const hook = webhookEndpoint();
    const error = await failure(generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', webhook: hook.factory }));
    expect(error).toBeInstanceOf(TaskFailedError);
    expect((error as TaskFailedError).taskId).toBe(ctx.mock.callbackDeliveries[0]?.taskId);
  });

  it('without a callback (the app’s endpoint never hears), the client’s polling ends it', async () => {
    const generating = generateVideo({
      model: ctx.omni.video('omni_flash'),
      prompt: 'a fox',
      webhook: async () => ({ url: 'https://app.example.test/hooks/lost', received: new Promise<never>(() => {}) }),
    });
    ctx.server.use(http.post('https://app.example.test/hooks/lost', () => HttpResponse.json({ error: 'gone' }, { status: 500 })));
    const result = await run(generating);
    expect(isMp4(result.video.uint8Array)).toBe(true);
    expect(result.providerMetadata.omnimedia).toMatchObject({ status: 'completed' });
  });

  it('an abort ends it at once, and the fallback polling with it', async () => {
    const hook = webhookEndpoint();
    const controller = new AbortController();
    const settled = generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', webhook: hook.factory, abortSignal: controller.signal }).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await run(new Promise((resolve) => setTimeout(resolve, 4_000)));
    const reads = requests(ctx.mock, 'GET', '/v1/tasks/').length;
    expect(reads).toBeGreaterThan(0); // the fallback was polling
    controller.abort(new Error('user left'));
    expect(await settled).toMatchObject({ message: expect.stringMatching(/user left|aborted/) }); // the AI SDK's wait rejects with its own AbortError
    await run(new Promise((resolve) => setTimeout(resolve, 60_000)));
    expect(requests(ctx.mock, 'GET', '/v1/tasks/')).toHaveLength(reads);
  });

  it('once the AI SDK has given up on the webhook (its 10 minutes), the fallback polling stops too (was: it polled on to 30 minutes)', async () => {
    const slow = createMockService({ baseURL: BASE_URL, durations: { video: 3_600_000 } });
    ctx.server.use(...slow.handlers);
    try {
      const error = await failure(
        generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', webhook: async () => ({ url: 'https://app.example.test/hooks/never', received: new Promise<never>(() => {}) }) }),
        11 * 60_000,
      );
      expect(String(error)).toMatch(/timed out|WaitTimeoutError/);
      const reads = requests(slow, 'GET', '/v1/tasks/').length;
      expect(reads).toBeGreaterThan(0); // the fallback was polling
      await run(new Promise((resolve) => setTimeout(resolve, 25 * 60_000)), 26 * 60_000);
      expect(requests(slow, 'GET', '/v1/tasks/')).toHaveLength(reads);
    } finally {
      slow.close();
    }
  }, 60_000);

  it('a webhook the AI SDK never started (no doStart) is not taken by a later generation with the same URL (was: that generation waited for the wrong one until its timeout)', async () => {
    const model = ctx.omni.video('omni_flash');
    const url = 'https://app.example.test/hooks/fixed';
    // Abandoned between handleWebhookOption and doStart (a caller that gave up).
    await model.handleWebhookOption({ webhook: async () => ({ url, received: new Promise<never>(() => {}) }) });
    await run(new Promise((resolve) => setTimeout(resolve, 30_000)));
    let deliver!: (delivery: Delivery) => void;
    const received = new Promise<Delivery>((resolve) => (deliver = resolve));
    ctx.server.use(http.post(url, async ({ request }) => (deliver({ headers: {}, body: await request.json() }), HttpResponse.json({ ok: true }))));
    const result = await run(generateVideo({ model, prompt: 'a fox', webhook: async () => ({ url, received: received as Promise<never> }) }), 120_000);
    expect(isMp4(result.video.uint8Array)).toBe(true);
  });
});
