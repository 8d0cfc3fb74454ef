import { describe, expect, it } from 'vitest';
import { APIError, OmniMedia, ValidationError } from 'omnimedia';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { SUBMISSION, countAllRequests, json, recordRoute, expectRejectedLocally } from '../helpers/wire.ts';

const server = useMsw();
const rejectsLocally = (call: () => Promise<unknown>) => expectRejectedLocally(server, call);
const client = () => new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, maxRetries: 0 });

describe('images.generate: the wire request', () => {
  it('POSTs the JSON body to /v1/images/generations with the bearer key, and reads the 200', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json({ ...SUBMISSION, queue: 'fast' }));
    const params = {
      model: 'omni-image',
      prompt: 'a lighthouse at dawn',
      size: '1536x1024',
      n: 2,
      quality: 'high',
      callback_url: 'https://hooks.example/cb',
    } as const;

    const task = await client().images.generate(params);

    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/images/generations');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(request?.text ?? '')).toEqual(params);
    // Unknown response fields are kept.
    expect(task).toEqual({ ...SUBMISSION, queue: 'fast' });
  });

  it('sends only what the caller gave (defaults are the service’s)', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json(SUBMISSION));
    await client().images.generate({ model: 'm', prompt: 'p' });
    expect(JSON.parse(seen[0]?.text ?? '')).toEqual({ model: 'm', prompt: 'p' });
  });

  it('accepts unknown status strings and null fields in the submission', async () => {
    recordRoute(server, 'post', '/v1/images/generations', json({ task_id: 't', status: 'queued', model: null, created_at: null }));
    const task = await client().images.generate({ model: 'm', prompt: 'p' });
    // A null on the wire reads as absent: no `| null` in the result types.
    expect(task).toStrictEqual({ task_id: 't', status: 'queued' });
  });

  it('reads a submission whose status is null or absent as pending', async () => {
    recordRoute(server, 'post', '/v1/images/generations', json({ task_id: 't1', status: null }), json({ task_id: 't2' }));
    expect((await client().images.generate({ model: 'm', prompt: 'p' })).status).toBe('pending');
    expect((await client().images.generate({ model: 'm', prompt: 'p' })).status).toBe('pending');
  });

  it('treats a 200 without task_id as an APIError that keeps the body', async () => {
    recordRoute(server, 'post', '/v1/images/generations', json({ status: 'pending', model: 'm' }));
    const error = await client().images.generate({ model: 'm', prompt: 'p' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect((error as APIError).message).toMatch(/task_id/);
    expect((error as APIError).body).toEqual({ status: 'pending', model: 'm' });
  });
});

describe('images.edit: the wire request', () => {
  it('POSTs to /v1/images/edits with upload URLs (strings or upload records) and a mask', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/edits', json(SUBMISSION));
    const record = { url: 'https://uploads.test/b.png', expires_at: Math.floor(Date.now() / 1000) + 3600 };
    await client().images.edit({
      model: 'omni-image',
      prompt: 'make it night',
      image: ['https://uploads.test/a.png', record],
      mask: { url: 'https://uploads.test/mask.png' },
      size: 'auto',
    });
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/images/edits');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(request?.text ?? '')).toEqual({
      model: 'omni-image',
      prompt: 'make it night',
      image: ['https://uploads.test/a.png', 'https://uploads.test/b.png'],
      mask: 'https://uploads.test/mask.png',
      size: 'auto',
    });
  });

  it('sends a single image as a string', async () => {
    const seen = recordRoute(server, 'post', '/v1/images/edits', json(SUBMISSION));
    await client().images.edit({ model: 'm', prompt: 'p', image: 'https://uploads.test/a.png' });
    expect(JSON.parse(seen[0]?.text ?? '')).toEqual({ model: 'm', prompt: 'p', image: 'https://uploads.test/a.png' });
  });

  it('refuses an expired upload record locally', async () => {
    const expired = { url: 'https://uploads.test/a.png', expires_at: Math.floor(Date.now() / 1000) - 1 };
    const error = await rejectsLocally(() => client().images.edit({ model: 'm', prompt: 'p', image: [expired] }));
    expect(error.issues).toEqual([{ path: 'image[0]', message: expect.stringMatching(/expired/) }]);
  });

  it('applies the same limits as generate', async () => {
    const error = await rejectsLocally(() =>
      client().images.edit({ model: 'm', prompt: 'p', image: 'https://u/a.png', size: '1000x1000', n: 0 as 1 }),
    );
    expect(error.issues.map((i) => i.path).sort()).toEqual(['n', 'size']);
  });
});

describe('images: size edges', () => {
  it.each(['3840x2160', '1024x640', '3840x1280', '1280x3840', 'auto'] as const)('%s passes and is sent', async (size) => {
    const seen = recordRoute(server, 'post', '/v1/images/generations', json(SUBMISSION));
    await client().images.generate({ model: 'm', prompt: 'p', size });
    expect(JSON.parse(seen[0]?.text ?? '').size).toBe(size);
  });

  it.each([
    ['1000x1000', 'both sides must be multiples of 16 (got 1000x1000)'],
    ['4096x1024', 'the longer side must be at most 3840 (got 4096)'],
    ['640x640', 'the pixel count must be 655,360 to 8,294,400 (got 409,600)'],
    ['3856x1280', 'the longer side must be at most 3840 (got 3856)'],
    ['3840x1264', 'the aspect ratio must be at most 3:1 (got 3840x1264)'],
    ['1024', 'must be "auto" or "WIDTHxHEIGHT", e.g. "1024x1024"'],
  ] as const)('%s fails: %s', async (size, message) => {
    const error = await rejectsLocally(() => client().images.generate({ model: 'm', prompt: 'p', size: size as '1x1' }));
    expect(error.issues).toEqual([{ path: 'size', message }]);
  });
});

describe('images: other limits', () => {
  it.each([0, 5, 1.5])('n %s fails', async (n) => {
    // @ts-expect-error n is 1 | 2 | 3 | 4
    const error = await rejectsLocally(() => client().images.generate({ model: 'm', prompt: 'p', n }));
    expect(error.issues).toEqual([{ path: 'n', message: 'must be an integer from 1 to 4' }]);
  });

  it('n 0 and 5 are type errors too', () => {
    const typeOnly = (c: OmniMedia) => {
      // @ts-expect-error n is 1 | 2 | 3 | 4
      void c.images.generate({ model: 'm', prompt: 'p', n: 0 });
      // @ts-expect-error n is 1 | 2 | 3 | 4
      void c.images.generate({ model: 'm', prompt: 'p', n: 5 });
      // @ts-expect-error quality is low | medium | high | auto
      void c.images.generate({ model: 'm', prompt: 'p', quality: 'ultra' });
      // @ts-expect-error size is auto or WxH
      void c.images.generate({ model: 'm', prompt: 'p', size: 'big' });
    };
    expect(typeOnly).toBeTypeOf('function');
  });

  it('quality outside low/medium/high/auto fails', async () => {
    const error = await rejectsLocally(() =>
      // @ts-expect-error quality is low | medium | high | auto
      client().images.generate({ model: 'm', prompt: 'p', quality: 'ultra' }),
    );
    expect(error.issues).toEqual([{ path: 'quality', message: 'must be one of "low", "medium", "high" or "auto"' }]);
  });

  it('a prompt of 4,001 code points fails; the message gives the limit and the count', async () => {
    const error = await rejectsLocally(() => client().images.generate({ model: 'm', prompt: 'a'.repeat(4001) }));
    expect(error.issues).toEqual([{ path: 'prompt', message: 'must be at most 4,000 characters (got 4,001)' }]);
  });

  it('4,000 emoji pass: the limit counts code points, not UTF-16 units', async () => {
    const prompt = '🦊'.repeat(4000);
    expect(prompt.length).toBe(8000);
    const seen = recordRoute(server, 'post', '/v1/images/generations', json(SUBMISSION));
    await client().images.generate({ model: 'm', prompt });
    expect(JSON.parse(seen[0]?.text ?? '').prompt).toBe(prompt);
  });

  it('4,001 emoji fail', async () => {
    const error = await rejectsLocally(() => client().images.generate({ model: 'm', prompt: '🦊'.repeat(4001) }));
    expect(error.issues).toEqual([{ path: 'prompt', message: 'must be at most 4,000 characters (got 4,001)' }]);
  });

  it('an empty prompt, a missing model and a relative callback_url are each named', async () => {
    const error = await rejectsLocally(() =>
      // @ts-expect-error model is required
      client().images.generate({ prompt: ' ', callback_url: '/cb' }),
    );
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: 'model', message: 'is required' },
        { path: 'prompt', message: 'must not be empty' },
        { path: 'callback_url', message: 'must be an absolute http(s) URL' },
      ]),
    );
    expect(error.message).toMatch(/^Invalid images\.generate params: /);
  });
});
