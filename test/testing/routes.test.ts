// The mock's HTTP behaviour, endpoint by endpoint, against service-spec.md.
import { afterEach, describe, expect, it } from 'vitest';
import { createMockService, type MockService } from 'omnimedia/testing';
import { KEY, fixture, get, imageParts, photo, post, upload, uploadPhoto, uploadVideo } from './mock-helpers.ts';

let mock: MockService;
afterEach(() => mock?.close());
const fresh = () => (mock = createMockService());

async function expect400(response: Response, param: string, message: RegExp) {
  expect(response.status).toBe(400);
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await response.json()) as { error: { code: string; message: string; param?: string } };
  expect(body.error.code).toBe('invalid_request');
  expect(body.error.param).toBe(param);
  expect(body.error.message).toMatch(message);
}

describe('POST /v1/images/generations (4.1)', () => {
  it('answers 200 with task_id, status pending, model, created_at', async () => {
    fresh();
    const response = await post(mock, '/v1/images/generations', { model: 'omni-image', prompt: 'a lighthouse', size: '1536x1024' });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({ task_id: expect.stringMatching(/^task_/), status: 'pending', model: 'omni-image', created_at: expect.any(Number) });
    expect(response.headers.get('x-request-id')).toMatch(/^req_mock_/);
  });

  it.each([
    [{ prompt: 'p' }, 'model', /model is required/],
    [{ model: 'm' }, 'prompt', /prompt is required/],
    [{ model: 'm', prompt: 'x'.repeat(4001) }, 'prompt', /at most 4000 characters \(got 4001\)/],
    [{ model: 'm', prompt: 'p', size: '1000x1000' }, 'size', /multiples of 16/],
    [{ model: 'm', prompt: 'p', size: '4096x1024' }, 'size', /longer side/],
    [{ model: 'm', prompt: 'p', size: '3840x1264' }, 'size', /aspect ratio/],
    [{ model: 'm', prompt: 'p', size: '640x640' }, 'size', /pixel count/],
    [{ model: 'm', prompt: 'p', size: 1024 }, 'size', /must be a string/],
    [{ model: 'm', prompt: 'p', n: 0 }, 'n', /1 to 4/],
    [{ model: 'm', prompt: 'p', n: 5 }, 'n', /1 to 4/],
    [{ model: 'm', prompt: 'p', n: 1.5 }, 'n', /1 to 4/],
    [{ model: 'm', prompt: 'p', quality: 'ultra' }, 'quality', /low, medium, high, auto/],
    [{ model: 'm', prompt: 'p', callback_url: 'ftp://x/y' }, 'callback_url', /absolute http/],
  ])('refuses %j with 400 naming %s', async (body, param, message) => {
    fresh();
    await expect400(await post(mock, '/v1/images/generations', body), param, message);
    expect(mock.tasks()).toEqual([]);
  });

  it.each(['auto', '1024x1024', '3840x2160', '1024x640', '3840x1280', '2048x2048'])('accepts size %s (spec limits, inclusive)', async (size) => {
    fresh();
    expect((await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p', size })).status).toBe(200);
  });

  it('counts the 4,000-character limit in code points: 4,000 emoji pass', async () => {
    fresh();
    expect((await post(mock, '/v1/images/generations', { model: 'm', prompt: '🦊'.repeat(4000) })).status).toBe(200);
  });

  it('refuses a body that is not JSON, or not an object', async () => {
    fresh();
    const notJson = await mock.handle(
      new Request(`${mock.baseURL}/v1/images/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: '{nope',
      }),
    );
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { message: string } }).error.message).toMatch(/not valid JSON/);
    expect((await post(mock, '/v1/images/generations', [1, 2])).status).toBe(400);
    const plain = await mock.handle(
      new Request(`${mock.baseURL}/v1/images/generations`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: 'model=m' }),
    );
    expect(plain.status).toBe(400);
  });
});

describe('POST /v1/images/edits (4.3)', () => {
  it('accepts uploaded URLs (one, several, and a mask) with 200', async () => {
    fresh();
    const a = await uploadPhoto(mock);
    const b = await uploadPhoto(mock);
    expect((await post(mock, '/v1/images/edits', { model: 'm', prompt: 'night', image: a.url })).status).toBe(200);
    const multi = await post(mock, '/v1/images/edits', { model: 'm', prompt: 'night', image: [a.url, b.url], mask: b.url, n: 2 });
    expect(multi.status).toBe(200);
    expect(await multi.json()).toMatchObject({ status: 'pending', model: 'm' });
  });

  it('refuses an image that did not come from the upload endpoint', async () => {
    fresh();
    await expect400(
      await post(mock, '/v1/images/edits', { model: 'm', prompt: 'p', image: 'https://example.com/cat.png' }),
      'image',
      /returned by the image upload endpoint/,
    );
    const a = await uploadPhoto(mock);
    await expect400(
      await post(mock, '/v1/images/edits', { model: 'm', prompt: 'p', image: [a.url, `${a.url}x`] }),
      'image[1]',
      /returned by the image upload endpoint/,
    );
    await expect400(await post(mock, '/v1/images/edits', { model: 'm', prompt: 'p', image: a.url, mask: 'https://x/m.png' }), 'mask', /upload/);
  });

  it('refuses a missing or empty image, and applies the image limits', async () => {
    fresh();
    await expect400(await post(mock, '/v1/images/edits', { model: 'm', prompt: 'p' }), 'image', /required/);
    await expect400(await post(mock, '/v1/images/edits', { model: 'm', prompt: 'p', image: [] }), 'image', /at least one/);
    const a = await uploadPhoto(mock);
    await expect400(await post(mock, '/v1/images/edits', { model: 'm', prompt: 'p', image: a.url, n: 7 }), 'n', /1 to 4/);
  });
});

describe('POST /v1/video/generate (4.4)', () => {
  it('answers 202 with normalized_model, operation and media_type; defaults 10 s at 720p', async () => {
    fresh();
    const response = await post(mock, '/v1/video/generate', { model: 'omni_flash', messages: [{ role: 'user', content: 'a fox' }] });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({
      task_id: expect.any(String),
      status: 'pending',
      model: 'omni_flash',
      normalized_model: 'omni_flash_720p_10s',
      operation: 'video_generation',
      media_type: 'video',
      created_at: expect.any(Number),
    });
  });

  it('matches image to video with its billing specification, e.g. omni_flash_components_1080p_8s', async () => {
    fresh();
    const a = await uploadPhoto(mock);
    const response = await post(mock, '/v1/video/generate', {
      model: 'omni_flash_components',
      messages: imageParts(a.url),
      seconds: '8',
      resolution: '1080p',
      aspect_ratio: '9:16',
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ normalized_model: 'omni_flash_components_1080p_8s' });
  });

  it.each([
    [{ messages: [{ role: 'user', content: 'x' }] }, 'model', /required/],
    [{ model: 'omni_ultra', messages: [{ role: 'user', content: 'x' }] }, 'model', /omni_flash/],
    [{ model: 'omni_flash' }, 'messages', /required/],
    [{ model: 'omni_flash', messages: [] }, 'messages', /non-empty/],
    [{ model: 'omni_flash', messages: [{ content: 'x' }] }, 'messages[0].role', /role/],
    [{ model: 'omni_flash', messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] }, 'messages[0].content[0]', /type/],
    [{ model: 'omni_flash', messages: [{ role: 'user', content: 'x' }], seconds: 8 }, 'seconds', /4, 6, 8, 10/],
    [{ model: 'omni_flash', messages: [{ role: 'user', content: 'x' }], seconds: '5' }, 'seconds', /4, 6, 8, 10/],
    [{ model: 'omni_flash', messages: [{ role: 'user', content: 'x' }], resolution: '8K' }, 'resolution', /720p, 1080p, 4K/],
    [{ model: 'omni_flash', messages: [{ role: 'user', content: 'x' }], aspect_ratio: '1:1' }, 'aspect_ratio', /16:9, 9:16/],
    [{ model: 'omni_flash_components', messages: [{ role: 'user', content: 'x' }] }, 'messages', /at least one image_url/],
  ])('refuses %j with 400 naming %s', async (body, param, message) => {
    fresh();
    await expect400(await post(mock, '/v1/video/generate', body), param, message);
  });

  it('refuses images for text to video, more than 3 images, and URLs not from the upload endpoint', async () => {
    fresh();
    const a = await uploadPhoto(mock);
    await expect400(await post(mock, '/v1/video/generate', { model: 'omni_flash', messages: imageParts(a.url) }), 'messages', /text to video/);
    await expect400(
      await post(mock, '/v1/video/generate', { model: 'omni_flash_components', messages: imageParts(a.url, a.url, a.url, a.url) }),
      'messages',
      /at most 3 reference images \(got 4\)/,
    );
    expect((await post(mock, '/v1/video/generate', { model: 'omni_flash_components', messages: imageParts(a.url, a.url, a.url) })).status).toBe(202);
    await expect400(
      await post(mock, '/v1/video/generate', { model: 'omni_flash_components', messages: imageParts('https://elsewhere.test/a.png') }),
      'messages',
      /returned by the image upload endpoint/,
    );
  });
});

describe('POST /v1/video/edits (4.6)', () => {
  it('answers 202 on an uploaded video, billed by resolution only', async () => {
    fresh();
    const clip = await uploadVideo(mock);
    const response = await post(mock, '/v1/video/edits', {
      model: 'omni_flash_edit',
      messages: [{ role: 'user', content: 'make it snow' }],
      input_video: { upload_id: clip.upload_id },
      resolution: '1080p',
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ normalized_model: 'omni_flash_edit_1080p', operation: 'video_editing', media_type: 'video' });
  });

  it('refuses seconds, a missing or unknown input_video, and another model', async () => {
    fresh();
    const clip = await uploadVideo(mock);
    const base = { model: 'omni_flash_edit', messages: [{ role: 'user', content: 'snow' }], input_video: { upload_id: clip.upload_id } };
    await expect400(await post(mock, '/v1/video/edits', { ...base, seconds: '8' }), 'seconds', /no seconds/);
    await expect400(await post(mock, '/v1/video/edits', { ...base, input_video: undefined }), 'input_video', /required/);
    await expect400(await post(mock, '/v1/video/edits', { ...base, input_video: { upload_id: 'vid_nope' } }), 'input_video.upload_id', /not a video upload/);
    await expect400(await post(mock, '/v1/video/edits', { ...base, model: 'omni_flash' }), 'model', /omni_flash_edit/);
  });
});

describe('uploads (4.2, 4.5)', () => {
  it('stores an image with its real size, sniffed type, width, height and a 24 h expiry', async () => {
    fresh();
    const bytes = photo();
    // The part claims to be a GIF named .jpg: the service reads the bytes.
    const response = await upload(mock, 'images', bytes, { name: 'holiday.jpg', type: 'image/gif' });
    expect(response.status).toBe(200);
    const record = (await response.json()) as Record<string, number | string>;
    expect(record).toEqual({
      url: expect.stringMatching(/^https:\/\/api\.omnimedia\.test\/files\/uploads\/img_[a-z0-9]+\/holiday\.jpg$/),
      filename: 'holiday.jpg',
      content_type: 'image/png',
      bytes: bytes.byteLength,
      width: 512,
      height: 512,
      created_at: expect.any(Number),
      expires_at: expect.any(Number),
    });
    expect(record.expires_at).toBe((record.created_at as number) + 24 * 3600);
    // The URL serves the bytes back.
    const served = await get(mock, record.url as string);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes);
  });

  it.each([
    ['tiny.jpg', 'image/jpeg', 16, 16],
    ['tiny.webp', 'image/webp', 16, 16],
    ['tiny-lossless.webp', 'image/webp', 36, 20],
  ])('reads %s as %s %ix%i', async (name, type, width, height) => {
    fresh();
    const response = await upload(mock, 'images', fixture(name), { name });
    expect(await response.json()).toMatchObject({ content_type: type, width, height });
  });

  it('refuses a GIF, an empty file, a missing file, two files, a text field; 413 past 25 MiB', async () => {
    fresh();
    await expect400(await upload(mock, 'images', fixture('tiny.gif')), 'file', /PNG, JPEG, WebP \(found GIF\)/);
    await expect400(await upload(mock, 'images', new Uint8Array()), 'file', /empty/);
    await expect400(await upload(mock, 'images', undefined), 'file', /required/);
    await expect400(
      await upload(mock, 'images', photo(), { extra: (form) => form.append('file', new File([photo()], 'b.png')) }),
      'file',
      /more than one part: an upload is one file/,
    );
    await expect400(await upload(mock, 'images', undefined, { extra: (form) => form.append('file', 'text') }), 'file', /no filename: it is not a file/);
    const big = new Uint8Array(25 * 1024 * 1024 + 1);
    big.set(photo().subarray(0, 64));
    const response = await upload(mock, 'images', big);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: { code: 'too_large', param: 'file', message: expect.stringMatching(/^file must be at most 25 MiB \(26,214,400 bytes\); the upload passed it/) },
    });
    expect(mock.uploads()).toEqual([]);
  });

  it('stores a video with an upload_id; refuses an image on the video endpoint', async () => {
    fresh();
    const response = await upload(mock, 'videos', fixture('tiny.webm'), { name: 'clip.webm' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      upload_id: expect.stringMatching(/^vid_/),
      url: expect.stringContaining('/files/uploads/'),
      filename: 'clip.webm',
      content_type: 'video/webm',
      bytes: fixture('tiny.webm').byteLength,
      created_at: expect.any(Number),
      expires_at: expect.any(Number),
    });
    await expect400(await upload(mock, 'videos', photo()), 'file', /MP4, MOV, WebM \(found PNG\)/);
  });

  it('refuses a body that is not multipart', async () => {
    fresh();
    await expect400(await post(mock, '/v1/uploads/images', { file: 'x' }), 'file', /multipart/);
  });
});

describe('authentication (5)', () => {
  it.each([
    ['/v1/images/generations', { model: 'm', prompt: 'p' }],
    ['/v1/images/edits', { model: 'm', prompt: 'p', image: 'x' }],
    ['/v1/video/generate', { model: 'omni_flash', messages: [{ role: 'user', content: 'x' }] }],
    ['/v1/video/edits', { model: 'omni_flash_edit', messages: [{ role: 'user', content: 'x' }], input_video: { upload_id: 'v' } }],
  ])('%s without a key: 401 before validation, and no task', async (path, body) => {
    fresh();
    const response = await post(mock, path, body, { auth: false });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: { code: 'invalid_api_key', message: expect.stringMatching(/missing API key/) } });
    expect((await post(mock, path, body, { auth: 'Basic abc' })).status).toBe(401);
    expect(mock.tasks()).toEqual([]);
  });

  it('uploads without a key: 401', async () => {
    fresh();
    expect((await upload(mock, 'images', photo(), { auth: false })).status).toBe(401);
    expect((await upload(mock, 'videos', fixture('tiny.webm'), { auth: false })).status).toBe(401);
  });

  it('with apiKeys set, only those keys pass', async () => {
    mock = createMockService({ apiKeys: ['sk-good'] });
    expect((await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' })).status).toBe(401);
    expect((await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' }, { auth: 'Bearer sk-good' })).status).toBe(200);
  });

  it('the task query needs no key and ignores an Authorization header, even a bad one', async () => {
    mock = createMockService({ apiKeys: ['sk-good'] });
    const { task_id } = (await (await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' }, { auth: 'Bearer sk-good' })).json()) as {
      task_id: string;
    };
    expect((await get(mock, `/v1/tasks/${task_id}`)).status).toBe(200);
    expect((await get(mock, `/v1/tasks/${task_id}`, { authorization: 'Bearer wrong' })).status).toBe(200);
  });
});

describe('GET /v1/tasks/{id} (4.7) and routing', () => {
  it('answers 404 with a JSON error for an unknown task', async () => {
    fresh();
    const response = await get(mock, '/v1/tasks/task_unknown');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'no task with id task_unknown' } });
    expect((await get(mock, '/v1/tasks/%E0%A4%A')).status).toBe(404);
  });

  it('answers 404 for an unknown route and 405 (with Allow) for a wrong method', async () => {
    fresh();
    expect((await get(mock, '/v2/tasks/x')).status).toBe(404);
    const wrong = await get(mock, '/v1/images/generations');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('serves under the base URL path when it has one', async () => {
    mock = createMockService({ baseURL: 'https://gateway.test/omni/' });
    expect(mock.baseURL).toBe('https://gateway.test/omni');
    const response = await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' });
    expect(response.status).toBe(200);
    expect(mock.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v1/images/generations', status: 200 });
  });
});

describe('CORS', () => {
  it('answers a preflight for Authorization and Content-Type with 204', async () => {
    fresh();
    const response = await mock.handle(
      new Request(`${mock.baseURL}/v1/images/generations`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      }),
    );
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(response.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect(response.headers.get('access-control-allow-headers')).toMatch(/content-type/);
  });

  it('puts Access-Control-Allow-Origin on answers and errors, and exposes Retry-After', async () => {
    fresh();
    const ok = await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p' });
    const bad = await post(mock, '/v1/images/generations', { model: 'm' });
    for (const response of [ok, bad]) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toMatch(/retry-after/);
    }
  });
});
