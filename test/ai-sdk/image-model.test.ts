// generateImage (the real `ai` package) with omni.image() against the mock service.
import { generateImage } from 'ai';
import { describe, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { UnusableResultError, ValidationError } from 'omnimedia';
import { fixture, photo } from '../testing/mock-helpers.ts';
import { BASE_URL, failure, pngSize, requests, run, useAiSdk } from './setup.ts';

const ctx = useAiSdk();

describe('generateImage with omni.image()', () => {
  it('generates n = 2 in one task: the images as PNG bytes, the task in providerMetadata', async () => {
    const result = await run(generateImage({ model: ctx.omni.image('omni-image'), prompt: 'a lighthouse at dawn', size: '1536x1024', n: 2 }));
    const posts = requests(ctx.mock, 'POST', '/v1/images/generations');
    expect(posts).toHaveLength(1);
    const [task] = ctx.mock.tasks() as { task_id: string; total_cost: number; attempt_count: number; provider: string }[];
    expect(ctx.mock.tasks()).toHaveLength(1);

    expect(result.images).toHaveLength(2);
    for (const image of result.images) {
      expect(image.mediaType).toBe('image/png');
      expect(pngSize(image.uint8Array)).toEqual([1536, 1024]);
    }
    // At the top, the AI SDK keeps one entry per image; each names its task and result URL.
    expect(result.providerMetadata.omnimedia?.images).toEqual([
      { task_id: task!.task_id, url: expect.stringContaining(`/files/results/${task!.task_id}/0.png`) },
      { task_id: task!.task_id, url: expect.stringContaining(`/files/results/${task!.task_id}/1.png`) },
    ]);
    expect(result.images[1]!.providerMetadata).toEqual({ omnimedia: { task_id: task!.task_id, url: expect.stringContaining('/1.png') } });
    // The whole record, per call.
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]!.providerMetadata?.omnimedia).toMatchObject({
      task_id: task!.task_id,
      status: 'completed',
      total_cost: task!.total_cost,
      attempt_count: 1,
      provider: task!.provider,
      model: 'omni-image',
    });
    expect(result.warnings).toEqual([]);
  });

  it('n = 6 is two tasks (4 + 2): maxImagesPerCall is the spec’s n limit', async () => {
    const result = await run(generateImage({ model: ctx.omni.image('omni-image'), prompt: 'a fox', n: 6 }));
    expect(result.images).toHaveLength(6);
    expect(ctx.mock.tasks().map((t) => (t.data as unknown[]).length).sort()).toEqual([2, 4]);
    expect(result.calls).toHaveLength(2);
    expect(new Set(result.images.map((i) => (i.providerMetadata?.omnimedia as { task_id: string }).task_id)).size).toBe(2);
  });

  it('edits with a mask: both files are uploaded first, then one edit with their URLs', async () => {
    const result = await run(
      generateImage({
        model: ctx.omni.image('omni-image'),
        prompt: { text: 'make it night', images: [photo()], mask: fixture('tiny.png') },
        size: '1024x1024',
      }),
    );
    const uploads = requests(ctx.mock, 'POST', '/v1/uploads/images');
    const edits = requests(ctx.mock, 'POST', '/v1/images/edits');
    expect(uploads).toHaveLength(2);
    expect(edits).toHaveLength(1);
    expect(ctx.mock.requests.indexOf(edits[0]!)).toBeGreaterThan(ctx.mock.requests.indexOf(uploads[1]!));
    const records = ctx.mock.uploads() as { url: string; width: number }[];
    const [task] = ctx.mock.tasks() as { operation: string }[];
    expect(task).toMatchObject({ operation: 'image_editing', status: 'completed' });
    expect(records.map((r) => r.width).sort((a, b) => a - b)).toEqual([16, 512]);
    expect(result.images).toHaveLength(1);
    expect(pngSize(result.image.uint8Array)).toEqual([1024, 1024]);
  });

  it('an image given as a URL is sent as it is (the service takes its own upload URLs)', async () => {
    const upload = await ctx.omni.client.uploads.image(photo());
    await run(generateImage({ model: ctx.omni.image('omni-image'), prompt: { text: 'make it night', images: [upload.url] } }));
    expect(requests(ctx.mock, 'POST', '/v1/uploads/images')).toHaveLength(1); // ours above, no other
    expect(ctx.mock.tasks()[0]).toMatchObject({ operation: 'image_editing', status: 'completed' });
  });

  // Issue 30, defect 4: a billed task that completed without a usable result URL came out as a
  // ValidationError ("nothing sent") without its task id.
  it.each([
    ['no result', []],
    ['a relative result URL', [{ url: '/files/0.png' }]],
  ])('a completed task with %s: UnusableResultError with the task id (reachable as the error or its cause)', async (_name, data) => {
    ctx.server.use(http.get(`${BASE_URL}/v1/tasks/:id`, ({ params }) => HttpResponse.json({ task_id: params.id, status: 'completed', data })));
    const error = await failure(generateImage({ model: ctx.omni.image('omni-image'), prompt: 'a fox' }));
    const [task] = ctx.mock.tasks() as { task_id: string }[];
    const ours = error instanceof UnusableResultError ? error : (error as { cause?: unknown }).cause;
    expect(ours).toBeInstanceOf(UnusableResultError);
    expect(ours).toMatchObject({ taskId: task!.task_id, task: { task_id: task!.task_id, status: 'completed' } });
    expect(requests(ctx.mock, 'POST', '/v1/images/generations')).toHaveLength(1);
  });

  it('bad input is our ValidationError, naming the field, and nothing is sent', async () => {
    const model = ctx.omni.image('omni-image');
    const size = await failure(generateImage({ model, prompt: 'a fox', size: '1000x1000' }));
    expect(size).toBeInstanceOf(ValidationError);
    expect((size as ValidationError).issues).toEqual([{ path: 'size', message: expect.stringContaining('multiples of 16') }]);

    const prompt = await failure(generateImage({ model, prompt: 'x'.repeat(4001) }));
    expect((prompt as ValidationError).issues[0]?.path).toBe('prompt');

    // A file that is no image the service takes: refused before any upload.
    const gif = await failure(generateImage({ model, prompt: { text: 'night', images: [fixture('tiny.gif')] } }));
    expect(gif).toBeInstanceOf(ValidationError);
    expect((gif as ValidationError).message).toMatch(/GIF/);

    const quality = await failure(generateImage({ model, prompt: 'a fox', providerOptions: { omnimedia: { quality: 'ultra' } } }));
    expect((quality as ValidationError).issues[0]?.path).toBe('quality');
    expect(ctx.mock.requests).toEqual([]);
  });

  it('providerOptions.omnimedia fields go with the request', async () => {
    await run(generateImage({ model: ctx.omni.image('omni-image'), prompt: 'a fox', size: '1024x1024', providerOptions: { omnimedia: { quality: 'high' } } }));
    // The mock prices high quality at twice the pixels' price (see "Testing your app").
    const [high] = ctx.mock.tasks() as { total_cost: number }[];
    await run(generateImage({ model: ctx.omni.image('omni-image'), prompt: 'a fox', size: '1024x1024' }));
    const [, auto] = ctx.mock.tasks() as { total_cost: number }[];
    expect(high!.total_cost).toBe(2 * auto!.total_cost);
  });

  it('aspectRatio, seed and per-call headers are AI SDK warnings, not silent drops', async () => {
    const result = await run(
      generateImage({ model: ctx.omni.image('omni-image'), prompt: 'a fox', aspectRatio: '16:9', seed: 42, headers: { 'x-trace': '1' } }),
    );
    expect(result.warnings).toEqual([
      { type: 'unsupported', feature: 'aspectRatio', details: expect.stringContaining('pass size') },
      { type: 'unsupported', feature: 'seed', details: expect.any(String) },
      { type: 'unsupported', feature: 'headers', details: expect.stringContaining('x-trace') },
    ]);
    expect(result.images).toHaveLength(1);
  });
});
