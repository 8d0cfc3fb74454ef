import { describe, expect, it } from 'vitest';
import { OmniMedia, ValidationError } from 'omnimedia';
import type { VideoMessage } from 'omnimedia/schemas';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { VIDEO_SUBMISSION, countAllRequests, json, recordRoute, expectRejectedLocally } from '../helpers/wire.ts';

const server = useMsw();
const rejectsLocally = (call: () => Promise<unknown>) => expectRejectedLocally(server, call);
const client = () => new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, maxRetries: 0 });
const IMG = (n: number) => `https://uploads.test/ref-${n}.png`;

describe('videos.generate: the wire request', () => {
  it('text to video: POST /v1/video/generate, bearer key, JSON, seconds as a string, 202 read', async () => {
    const seen = recordRoute(server, 'post', '/v1/video/generate', json(VIDEO_SUBMISSION, 202));
    const task = await client().videos.generate({
      prompt: 'a fox in the snow',
      seconds: 6,
      resolution: '1080p',
      aspect_ratio: '9:16',
      callback_url: 'https://hooks.example/cb',
    });
    const [request] = seen;
    expect(seen).toHaveLength(1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/video/generate');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.text).toContain('"seconds":"6"');
    expect(JSON.parse(request?.text ?? '')).toEqual({
      model: 'omni_flash',
      messages: [{ role: 'user', content: 'a fox in the snow' }],
      seconds: '6',
      resolution: '1080p',
      aspect_ratio: '9:16',
      callback_url: 'https://hooks.example/cb',
    });
    expect(task).toEqual(VIDEO_SUBMISSION);
  });

  it('image to video from the sugar: image parts then the text, model omni_flash_components', async () => {
    const seen = recordRoute(server, 'post', '/v1/video/generate', json(VIDEO_SUBMISSION, 202));
    await client().videos.generate({ prompt: 'it runs', images: [IMG(1), { url: IMG(2) }], seconds: '8' });
    expect(JSON.parse(seen[0]?.text ?? '')).toEqual({
      model: 'omni_flash_components',
      seconds: '8',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: IMG(1) } },
            { type: 'image_url', image_url: { url: IMG(2) } },
            { type: 'text', text: 'it runs' },
          ],
        },
      ],
    });
  });

  it('raw messages go out exactly as given', async () => {
    const seen = recordRoute(server, 'post', '/v1/video/generate', json(VIDEO_SUBMISSION, 202));
    const messages: VideoMessage[] = [
      { role: 'system', content: 'cinematic' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: IMG(1) } }, { type: 'text', text: 'run' }] },
    ];
    await client().videos.generate({ model: 'omni_flash_components', messages, seconds: 10 });
    expect(JSON.parse(seen[0]?.text ?? '')).toEqual({ model: 'omni_flash_components', messages, seconds: '10' });
  });

  it('a 202 without task_id is an APIError, with unknown fields and nulls fine otherwise', async () => {
    recordRoute(
      server,
      'post',
      '/v1/video/generate',
      json({ task_id: 'v', status: 'accepted', normalized_model: null, extra: { a: 1 } }, 202),
      json({ status: 'pending' }, 202),
    );
    // A known field that is null on the wire reads as absent; unknown fields are kept.
    expect(await client().videos.generate({ prompt: 'p' })).toStrictEqual({
      task_id: 'v',
      status: 'accepted',
      extra: { a: 1 },
    });
    const error = await client().videos.generate({ prompt: 'p' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'APIError', body: { status: 'pending' } });
  });
});

describe('videos.edit: the wire request', () => {
  it('POST /v1/video/edits with input_video {upload_id}, no seconds, 202 read', async () => {
    const seen = recordRoute(server, 'post', '/v1/video/edits', json({ ...VIDEO_SUBMISSION, operation: 'video_edit' }, 202));
    const clip = { upload_id: 'up_1', url: 'https://uploads.test/clip.mp4', expires_at: Math.floor(Date.now() / 1000) + 60 };
    const task = await client().videos.edit({ prompt: 'make it snow', input_video: clip, resolution: '4K' });
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/video/edits');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(request?.text ?? '')).toEqual({
      model: 'omni_flash_edit',
      messages: [{ role: 'user', content: 'make it snow' }],
      input_video: { upload_id: 'up_1' },
      resolution: '4K',
    });
    expect(task.operation).toBe('video_edit');
  });

  it('takes the upload id as a string and raw messages', async () => {
    const seen = recordRoute(server, 'post', '/v1/video/edits', json(VIDEO_SUBMISSION, 202));
    await client().videos.edit({ messages: [{ role: 'user', content: 'snow' }], input_video: 'up_2' });
    expect(JSON.parse(seen[0]?.text ?? '')).toEqual({
      model: 'omni_flash_edit',
      messages: [{ role: 'user', content: 'snow' }],
      input_video: { upload_id: 'up_2' },
    });
  });
});

describe('videos: limits', () => {
  it('seconds 5 fails (and is a type error)', async () => {
    // @ts-expect-error seconds is 4 | 6 | 8 | 10
    const error = await rejectsLocally(() => client().videos.generate({ prompt: 'p', seconds: 5 }));
    expect(error.issues).toEqual([{ path: 'seconds', message: 'must be one of 4, 6, 8 or 10' }]);
  });

  it('resolution 8K fails (and is a type error)', async () => {
    // @ts-expect-error resolution is 720p | 1080p | 4K
    const error = await rejectsLocally(() => client().videos.generate({ prompt: 'p', resolution: '8K' }));
    expect(error.issues).toEqual([{ path: 'resolution', message: 'must be one of "720p", "1080p" or "4K"' }]);
  });

  it('aspect_ratio 4:3 fails (and is a type error)', async () => {
    // @ts-expect-error aspect_ratio is 16:9 | 9:16
    const error = await rejectsLocally(() => client().videos.generate({ prompt: 'p', aspect_ratio: '4:3' }));
    expect(error.issues).toEqual([{ path: 'aspect_ratio', message: 'must be one of "16:9" or "9:16"' }]);
  });

  it('4 reference images fail, from the sugar', async () => {
    const error = await rejectsLocally(() => client().videos.generate({ prompt: 'p', images: [IMG(1), IMG(2), IMG(3), IMG(4)] }));
    expect(error.issues).toEqual([{ path: 'images', message: 'must hold at most 3 reference images (got 4)' }]);
  });

  it('4 reference images fail, across raw messages', async () => {
    const part = (n: number) => ({ type: 'image_url' as const, image_url: { url: IMG(n) } });
    const error = await rejectsLocally(() =>
      client().videos.generate({
        model: 'omni_flash_components',
        messages: [
          { role: 'user', content: [part(1), part(2), { type: 'text', text: 'p' }] },
          { role: 'user', content: [part(3), part(4)] },
        ],
      }),
    );
    expect(error.issues).toEqual([{ path: 'messages', message: 'may reference at most 3 images (got 4)' }]);
  });

  it('3 reference images pass', async () => {
    const seen = recordRoute(server, 'post', '/v1/video/generate', json(VIDEO_SUBMISSION, 202));
    await client().videos.generate({ prompt: 'p', images: [IMG(1), IMG(2), IMG(3)] });
    expect(seen).toHaveLength(1);
  });

  it('seconds on a video edit fails (and is a type error)', async () => {
    const error = await rejectsLocally(() =>
      // @ts-expect-error video edits take no seconds
      client().videos.edit({ prompt: 'p', input_video: 'up_1', seconds: 6 }),
    );
    expect(error.issues).toEqual([{ path: 'seconds', message: 'video edits take no seconds: the length follows the source video' }]);
  });

  it('omni_flash with images, and omni_flash_components without, fail: the model decides the input', async () => {
    const withImages = await rejectsLocally(() => client().videos.generate({ model: 'omni_flash', prompt: 'p', images: [IMG(1)] }));
    expect(withImages.issues).toEqual([
      { path: 'model', message: 'omni_flash is text to video; reference images need omni_flash_components' },
    ]);
    const without = await rejectsLocally(() => client().videos.generate({ model: 'omni_flash_components', prompt: 'p' }));
    expect(without.issues).toEqual([
      { path: 'images', message: 'omni_flash_components (image to video) needs at least one reference image' },
    ]);
  });

  it('prompt and messages together fail (and are a type error), for generate and edit', async () => {
    const generate = await rejectsLocally(() =>
      // @ts-expect-error prompt and messages are exclusive
      client().videos.generate({ model: 'omni_flash', prompt: 'p', messages: [{ role: 'user', content: 'p' }] }),
    );
    expect(generate.issues).toEqual([{ path: 'messages', message: 'give either messages or prompt (with images), not both' }]);
    const edit = await rejectsLocally(() =>
      // @ts-expect-error prompt and messages are exclusive
      client().videos.edit({ prompt: 'p', messages: [{ role: 'user', content: 'p' }], input_video: 'up_1' }),
    );
    expect(edit.issues).toEqual([{ path: 'messages', message: 'give either messages or prompt, not both' }]);
  });

  it('an empty prompt and a missing input_video are named', async () => {
    const error = await rejectsLocally(() =>
      // @ts-expect-error input_video is required
      client().videos.edit({ prompt: '' }),
    );
    expect(error.issues).toEqual([
      { path: 'prompt', message: 'must not be empty' },
      { path: 'input_video', message: 'is required' },
    ]);
  });

  it('every broken rule is reported at once', async () => {
    const error = await rejectsLocally(() =>
      // @ts-expect-error several invalid fields
      client().videos.generate({ prompt: 'p', seconds: 5, resolution: '8K', aspect_ratio: '4:3' }),
    );
    expect(error.issues.map((i) => i.path).sort()).toEqual(['aspect_ratio', 'resolution', 'seconds']);
  });
});
