// Every accepted submission is journaled until its result is seen (so a fleet's
// `tasks.pending()` resumes only what nobody saw). Through the AI SDK the result is seen by the
// client's wait, by a status read in poll mode, or by a verified webhook delivery: each clears
// the entry, or a restarted fleet would hand the app finished generations to process again.
import { experimental_generateVideo as generateVideo, experimental_getVideoStatus, experimental_startVideo, generateImage } from 'ai';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { run, useAiSdk } from './setup.ts';

const ctx = useAiSdk();
const journal = () => ctx.omni.client.journal.list();

describe('the journal through the AI SDK', () => {
  it('generateImage and generateVideo without poll: cleared by the client’s wait', async () => {
    await run(generateImage({ model: ctx.omni.image('omni-image'), prompt: 'a fox' }));
    await run(generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox' }));
    expect(await journal()).toEqual([]);
  });

  it('poll mode: cleared by the status read that saw the end', async () => {
    await run(generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', poll: { intervalMs: 2_000 } }));
    expect(await journal()).toEqual([]);
  });

  it('startVideo then getVideoStatus: journaled while running, cleared once a read sees it end', async () => {
    const started = await run(experimental_startVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox' }));
    expect((await journal()).map((e) => e.task_id)).toEqual([(started.operation as { task_id: string }).task_id]);
    await run(new Promise((resolve) => setTimeout(resolve, 30_000)));
    await run(experimental_getVideoStatus(ctx.omni.video('omni_flash'), { operation: started.operation }));
    expect(await journal()).toEqual([]);
  });

  it('webhook mode: cleared by the verified delivery', async () => {
    let deliver!: (delivery: { headers: Record<string, string>; body: never }) => void;
    ctx.server.use(
      http.post('https://app.example.test/hooks/one', async ({ request }) => {
        deliver({ headers: {}, body: (await request.json()) as never });
        return HttpResponse.json({ ok: true });
      }),
    );
    await run(
      generateVideo({
        model: ctx.omni.video('omni_flash'),
        prompt: 'a fox',
        webhook: async () => ({ url: 'https://app.example.test/hooks/one', received: new Promise((resolve) => (deliver = resolve)) }),
      }),
    );
    expect(ctx.mock.callbackDeliveries).toHaveLength(1);
    expect(await journal()).toEqual([]);
  });
});
