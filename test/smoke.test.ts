import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { OmniMedia, ValidationError } from '../src/index.ts';
import { API_KEY, BASE_URL, useMsw } from './helpers/msw.ts';

const server = useMsw();

describe('smoke', () => {
  it('submits an image generation', async () => {
    let seen: { auth: string | null; body: unknown } | undefined;
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async ({ request }) => {
        seen = { auth: request.headers.get('authorization'), body: await request.json() };
        return HttpResponse.json({ task_id: 't1', status: 'pending', model: 'm', created_at: 1 });
      }),
    );
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
    const task = await client.images.generate({ model: 'm', prompt: 'p', size: '1024x640' });
    expect(task.task_id).toBe('t1');
    expect(seen).toEqual({ auth: `Bearer ${API_KEY}`, body: { model: 'm', prompt: 'p', size: '1024x640' } });
  });

  it('rejects a bad size before sending', async () => {
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
    const error = await client.images.generate({ model: 'm', prompt: 'p', size: '1000x1000' }).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([{ path: 'size', message: 'both sides must be multiples of 16 (got 1000x1000)' }]);
  });

  it('sends video seconds as a string, builds messages', async () => {
    let body: unknown;
    server.use(
      http.post(`${BASE_URL}/v1/video/generate`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ task_id: 'v1', status: 'pending' }, { status: 202 });
      }),
    );
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
    await client.videos.generate({ prompt: 'fox', seconds: 8, images: ['https://u/1.png'] });
    expect(body).toEqual({
      model: 'omni_flash_components',
      seconds: '8',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://u/1.png' } }, { type: 'text', text: 'fox' }] }],
    });
  });
});
