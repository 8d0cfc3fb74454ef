// experimental_generateVideo (the real `ai` package) with omni.video() against the mock service:
// without poll/webhook (doGenerate, the client's own wait), and the AI SDK's poll mode.
import { experimental_generateVideo as generateVideo, experimental_getVideoStatus, experimental_startVideo } from 'ai';
import { describe, expect, it } from 'vitest';
import { TaskFailedError, ValidationError } from 'omnimedia';
import { fixture, photo } from '../testing/mock-helpers.ts';
import { failure, isMp4, recordingFetch, requests, run, useAiSdk } from './setup.ts';

const ctx = useAiSdk();

describe('experimental_generateVideo with omni.video()', () => {
  it('text to video: duration and resolution mapped to the spec, the MP4 as bytes, the task as metadata', async () => {
    const recorded = recordingFetch();
    const omni = ctx.provider({ fetch: recorded.fetch });
    const result = await run(generateVideo({ model: omni.video('omni_flash'), prompt: 'a paper boat on a river', duration: 8, resolution: '1920x1080' }));
    expect(recorded.bodies).toEqual([
      {
        path: '/v1/video/generate',
        body: { model: 'omni_flash', messages: [{ role: 'user', content: 'a paper boat on a river' }], seconds: '8', resolution: '1080p', aspect_ratio: '16:9' },
      },
    ]);
    const [task] = ctx.mock.tasks() as { task_id: string; total_cost: number; provider: string }[];
    expect(result.videos).toHaveLength(1);
    expect(result.video.mediaType).toBe('video/mp4');
    expect(isMp4(result.video.uint8Array)).toBe(true);
    expect(result.providerMetadata.omnimedia).toMatchObject({
      task_id: task!.task_id,
      status: 'completed',
      normalized_model: 'omni_flash_1080p_8s',
      total_cost: task!.total_cost,
      attempt_count: 1,
      provider: task!.provider,
      videos: [{ url: expect.stringContaining(`/files/results/${task!.task_id}/0.mp4`) }],
    });
    expect(result.warnings).toEqual([]);
    // The client's cadence, not a fixed 5 s loop: a 10 s task is read a handful of times.
    expect(requests(ctx.mock, 'GET', '/v1/tasks/').length).toBeLessThanOrEqual(6);
  });

  it('a 300 s video: the client’s cadence reads it about 22 times, the AI SDK’s fixed 5 s poll 60; a model it knows, fewer', async () => {
    const reads = async (options: Partial<Parameters<typeof generateVideo>[0]>) => {
      ctx.mock.setDurations({ pending: 1_000, video: 299_000 });
      const before = requests(ctx.mock, 'GET', '/v1/tasks/').length;
      await run(generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', ...options }), 400_000);
      return requests(ctx.mock, 'GET', '/v1/tasks/').length - before;
    };
    const polled = await reads({ poll: { timeoutMs: 600_000 } });
    const first = await reads({});
    const learned = await reads({});
    expect(polled).toBeGreaterThanOrEqual(59);
    expect(first).toBeLessThanOrEqual(25);
    expect(learned).toBeLessThan(first);
  });

  it('poll mode: doStart, then doStatus at the AI SDK’s interval, one task query each', async () => {
    const result = await run(generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', duration: 4, poll: { intervalMs: 2_000 } }));
    expect(isMp4(result.video.uint8Array)).toBe(true);
    const reads = requests(ctx.mock, 'GET', '/v1/tasks/');
    const statuses = reads.map((r) => r.status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // 11 s of task at a 2 s interval: the reads it took, and no more.
    expect(reads.length).toBeGreaterThanOrEqual(5);
    expect(reads.length).toBeLessThanOrEqual(7);
    expect(result.providerMetadata.omnimedia).toMatchObject({ status: 'completed', normalized_model: 'omni_flash_720p_4s' });
  });

  it('image to video: the reference is uploaded first, then omni_flash_components is asked for', async () => {
    const recorded = recordingFetch();
    const omni = ctx.provider({ fetch: recorded.fetch });
    const result = await run(generateVideo({ model: omni.video('omni_flash'), prompt: { image: photo(), text: 'the fox starts running' }, aspectRatio: '9:16' }));
    const [upload] = ctx.mock.uploads() as { url: string }[];
    expect(requests(ctx.mock, 'POST', '/v1/uploads/images')).toHaveLength(1);
    expect(recorded.bodies.at(-1)).toEqual({
      path: '/v1/video/generate',
      body: {
        model: 'omni_flash_components',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: upload!.url } }, { type: 'text', text: 'the fox starts running' }] }],
        aspect_ratio: '9:16',
      },
    });
    expect(isMp4(result.video.uint8Array)).toBe(true);
  });

  it('first_frame, inputReferences images: up to three references, in order; last_frame with a warning', async () => {
    const recorded = recordingFetch();
    const omni = ctx.provider({ fetch: recorded.fetch });
    const result = await run(
      generateVideo({
        model: omni.video('omni_flash_components'),
        prompt: 'they dance',
        frameImages: [
          { image: photo(), frameType: 'first_frame' },
          { image: fixture('tiny.jpg'), frameType: 'last_frame' },
        ],
        resolution: '720x1280',
        poll: { intervalMs: 3_000 },
      }),
    );
    const uploads = ctx.mock.uploads() as { url: string; content_type: string }[];
    const urlOf = Object.fromEntries(uploads.map((u) => [u.content_type, u.url]));
    const body = recorded.bodies.at(-1)!.body as { messages: { content: { image_url?: { url: string } }[] }[]; resolution: string; aspect_ratio: string };
    // Uploaded in parallel, sent in the order given: the first frame, then the last.
    expect(body.messages[0]!.content.flatMap((part) => (part.image_url ? [part.image_url.url] : []))).toEqual([urlOf['image/png'], urlOf['image/jpeg']]);
    expect(body).toMatchObject({ resolution: '720p', aspect_ratio: '9:16' });
    expect(result.warnings).toEqual([{ type: 'compatibility', feature: 'frameImages', details: expect.stringContaining('last frame') }]);

    const four = await failure(
      generateVideo({ model: omni.video('omni_flash'), prompt: 'four', inputReferences: [photo(), photo(), photo(), fixture('tiny.jpg')] }),
    );
    expect(four).toBeInstanceOf(ValidationError);
    expect((four as ValidationError).issues).toEqual([{ path: 'images', message: expect.stringContaining('at most 3') }]);
    expect(ctx.mock.uploads()).toHaveLength(2); // the four were refused before any upload
  });

  it('a video in inputReferences is an edit of it: uploaded, then POST /v1/video/edits', async () => {
    const recorded = recordingFetch();
    const omni = ctx.provider({ fetch: recorded.fetch });
    const result = await run(
      generateVideo({ model: omni.video('omni_flash'), prompt: 'make it snow', inputReferences: [{ data: fixture('tiny.mp4'), mediaType: 'video/mp4' }], resolution: '1920x1080' }),
    );
    const [clip] = ctx.mock.uploads() as { upload_id: string }[];
    expect(requests(ctx.mock, 'POST', '/v1/uploads/videos')).toHaveLength(1);
    expect(recorded.bodies.at(-1)).toEqual({
      path: '/v1/video/edits',
      body: { model: 'omni_flash_edit', messages: [{ role: 'user', content: 'make it snow' }], input_video: { upload_id: clip!.upload_id }, resolution: '1080p', aspect_ratio: '16:9' },
    });
    expect(ctx.mock.tasks()[0]).toMatchObject({ operation: 'video_editing', status: 'completed' });
    expect(isMp4(result.video.uint8Array)).toBe(true);
  });

  it('values with no mapping are our ValidationError naming the AI SDK field, before any request', async () => {
    const model = ctx.omni.video('omni_flash');
    const cases: [Parameters<typeof generateVideo>[0], string, RegExp][] = [
      [{ model, prompt: 'a fox', duration: 5 }, 'duration', /4, 6, 8 or 10/],
      [{ model, prompt: 'a fox', resolution: '1024x768' }, 'resolution', /1280x720.*got 1024x768/],
      [{ model, prompt: 'a fox', aspectRatio: '1:1' }, 'aspectRatio', /16:9 or 9:16/],
      [{ model, prompt: 'a fox', aspectRatio: '9:16', resolution: '1920x1080' }, 'aspectRatio', /contradicts/],
      [{ model, prompt: 'snow', duration: 6, inputReferences: [{ data: fixture('tiny.mp4'), mediaType: 'video/mp4' }] }, 'duration', /follows the source/],
      [{ model, prompt: 'snow', inputReferences: [photo(), { data: fixture('tiny.mp4'), mediaType: 'video/mp4' }] }, 'inputReferences[1]', /no reference images/],
      [{ model, prompt: 'snow', inputReferences: [{ data: 'https://cdn.example/clip.mp4', mediaType: 'video/mp4' }] }, 'inputReferences[0]', /file data/],
    ];
    for (const [options, path, message] of cases) {
      const error = await failure(generateVideo(options));
      expect(error, path).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toEqual([path]);
      expect((error as ValidationError).issues[0]!.message).toMatch(message);
    }
    expect(ctx.mock.requests).toEqual([]);
  });

  it('seed, fps and generateAudio are AI SDK warnings; adaptive leaves the ratio to the service', async () => {
    const recorded = recordingFetch();
    const omni = ctx.provider({ fetch: recorded.fetch });
    const result = await run(generateVideo({ model: omni.video('omni_flash'), prompt: 'a fox', seed: 7, fps: 24, generateAudio: true, aspectRatio: 'adaptive' }));
    expect(result.warnings).toEqual([
      { type: 'unsupported', feature: 'seed', details: expect.any(String) },
      { type: 'unsupported', feature: 'fps', details: expect.any(String) },
      { type: 'unsupported', feature: 'generateAudio', details: expect.any(String) },
      { type: 'compatibility', feature: 'aspectRatio', details: expect.stringContaining('adaptive') },
    ]);
    expect(recorded.bodies[0]!.body).not.toHaveProperty('aspect_ratio');
  });

  it('a failed task is our TaskFailedError, with its id, in both modes', async () => {
    ctx.mock.failNextTask('provider_error');
    const direct = await failure(generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox' }));
    expect(direct).toBeInstanceOf(TaskFailedError);
    expect((direct as TaskFailedError).failReason).toBe('provider_error');
    ctx.mock.failNextTask('content_policy');
    const polled = await failure(generateVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', poll: { intervalMs: 2_000 } }));
    expect(polled).toBeInstanceOf(TaskFailedError);
    expect((polled as TaskFailedError).taskId).toBe((ctx.mock.tasks()[1] as { task_id: string }).task_id);
    expect((polled as TaskFailedError).failReason).toBe('content_policy');
  });

  it('experimental_startVideo and experimental_getVideoStatus: a job submitted now, read later', async () => {
    const started = await run(experimental_startVideo({ model: ctx.omni.video('omni_flash'), prompt: 'a fox', duration: 6 }));
    const { task_id } = started.operation as { task_id: string };
    expect(started.providerMetadata?.omnimedia).toMatchObject({ task_id, status: 'pending', normalized_model: 'omni_flash_720p_6s' });
    const early = await run(experimental_getVideoStatus(ctx.omni.video('omni_flash'), { operation: started.operation }));
    expect(early.status).toBe('pending');
    await run(new Promise((resolve) => setTimeout(resolve, 30_000)));
    const done = await run(experimental_getVideoStatus(ctx.omni.video('omni_flash'), { operation: started.operation }));
    expect(done.status).toBe('completed');
    expect(done.status === 'completed' && done.videos[0]?.type).toBe('binary');
    const bad = await failure(experimental_getVideoStatus(ctx.omni.video('omni_flash'), { operation: 'task_1' }));
    expect((bad as ValidationError).issues[0]?.path).toBe('operation');
  });
});
