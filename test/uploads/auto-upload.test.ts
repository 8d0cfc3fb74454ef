import { createReadStream } from 'node:fs';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { fileFromPath, OmniMedia, ValidationError, type ImageUpload, type VideoUpload } from '../../src/index.ts';
import { fixture } from '../helpers/fixtures.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';

const server = useMsw();
const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
const png = fixture('tiny.png');
const jpg = fixture('tiny.jpg');
const mp4 = fixture('tiny.mp4');
const future = Math.floor(Date.now() / 1000) + 86_400;

interface Seen {
  uploads: { name: string; type: string; size: number; at: number }[];
  submissions: { path: string; body: unknown }[];
}

/** An MSW service: uploads answer after `delay(name)` ms; submissions record their body. */
function service(delay: (name: string) => number = () => 0): Seen {
  const seen: Seen = { uploads: [], submissions: [] };
  let clock = 0;
  const upload = (kind: 'image' | 'video') =>
    http.post(`${BASE_URL}/v1/uploads/${kind}s`, async ({ request }) => {
      const file = (await request.formData()).get('file') as File;
      seen.uploads.push({ name: file.name, type: file.type, size: file.size, at: clock++ });
      await new Promise((r) => setTimeout(r, delay(file.name)));
      return HttpResponse.json(
        kind === 'image'
          ? { url: `https://files.example/${file.name}`, filename: file.name, expires_at: future }
          : { upload_id: `vid_${file.name}`, url: `https://files.example/${file.name}`, expires_at: future },
      );
    });
  const submit = (path: string, status: number) =>
    http.post(`${BASE_URL}${path}`, async ({ request }) => {
      seen.submissions.push({ path, body: await request.json() });
      return HttpResponse.json({ task_id: 't1', status: 'pending' }, { status });
    });
  server.use(upload('image'), upload('video'), submit('/v1/images/edits', 200), submit('/v1/video/generate', 202), submit('/v1/video/edits', 202));
  return seen;
}

describe('auto-upload', () => {
  it('images.edit: file objects in image[] and mask are uploaded, in parallel, order kept; strings untouched', async () => {
    // The first file answers last: the URLs must still come back in the order given.
    const seen = service((name) => (name === 'a.png' ? 30 : 0));
    const record: ImageUpload = { url: 'https://files.example/earlier.png', expires_at: future };
    await client.images.edit({
      model: 'm',
      prompt: 'make it night',
      image: [new File([png.bytes], 'a.png'), 'https://files.example/given.png', record, fileFromPath(jpg.path, 'b.jpg')],
      mask: png.bytes,
    });
    expect(seen.uploads.map((u) => u.name).sort()).toEqual(['a.png', 'b.jpg', 'upload.png']);
    expect(seen.submissions).toEqual([
      {
        path: '/v1/images/edits',
        body: {
          model: 'm',
          prompt: 'make it night',
          image: ['https://files.example/a.png', 'https://files.example/given.png', 'https://files.example/earlier.png', 'https://files.example/b.jpg'],
          mask: 'https://files.example/upload.png',
        },
      },
    ]);
  });

  it('uploads run at the same time, not one after the other', async () => {
    let inFlight = 0;
    let peak = 0;
    let allThere: () => void = () => {};
    const together = new Promise<void>((resolve) => (allThere = resolve));
    server.use(
      http.post(`${BASE_URL}/v1/uploads/images`, async () => {
        peak = Math.max(peak, ++inFlight);
        if (inFlight === 3) allThere();
        // Each answer waits for the three to be in flight (at most 2 s: one after the other,
        // the peak stays 1). A fixed 20 ms let a loaded machine build the third body too late.
        await Promise.race([together, new Promise((r) => setTimeout(r, 2_000))]);
        inFlight--;
        return HttpResponse.json({ url: `https://files.example/${peak}`, expires_at: future });
      }),
      http.post(`${BASE_URL}/v1/video/generate`, () => HttpResponse.json({ task_id: 't', status: 'pending' }, { status: 202 })),
    );
    await client.videos.generate({ prompt: 'run', images: [png.bytes, jpg.bytes, new Blob([png.bytes])] });
    expect(peak).toBe(3);
  });

  it('videos.generate: file images become image_url parts, in order', async () => {
    const seen = service((name) => (name === 'first.png' ? 20 : 0));
    await client.videos.generate({ prompt: 'the fox runs', images: [new File([png.bytes], 'first.png'), 'https://files.example/second.png', createReadStream(jpg.path)] });
    expect(seen.submissions[0]?.body).toEqual({
      model: 'omni_flash_components',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://files.example/first.png' } },
            { type: 'image_url', image_url: { url: 'https://files.example/second.png' } },
            { type: 'image_url', image_url: { url: 'https://files.example/tiny.jpg' } },
            { type: 'text', text: 'the fox runs' },
          ],
        },
      ],
    });
  });

  it('videos.edit: a file input_video is uploaded to the video endpoint and sent as {upload_id}', async () => {
    const seen = service();
    await client.videos.edit({ prompt: 'make it snow', input_video: fileFromPath(mp4.path) });
    expect(seen.uploads).toEqual([{ name: 'tiny.mp4', type: 'video/mp4', size: mp4.bytes.byteLength, at: 0 }]);
    expect(seen.submissions[0]?.body).toMatchObject({ model: 'omni_flash_edit', input_video: { upload_id: 'vid_tiny.mp4' } });
  });

  it('upload records and strings are used as they are: no upload', async () => {
    const seen = service();
    // A record stored as the wire wrote it (a null url): used as it is.
    const video = { upload_id: 'vid_9', url: null, expires_at: future } as unknown as VideoUpload;
    await client.videos.edit({ prompt: 'snow', input_video: video });
    await client.videos.edit({ prompt: 'snow', input_video: 'vid_plain' });
    expect(seen.uploads).toEqual([]);
    expect(seen.submissions.map((s) => (s.body as { input_video: unknown }).input_video)).toEqual([{ upload_id: 'vid_9' }, { upload_id: 'vid_plain' }]);
  });

  it('everything is validated before any upload: a bad prompt costs no upload', async () => {
    const seen = service();
    const error = (await client.images
      .edit({ model: 'm', prompt: 'x'.repeat(4001), image: png.bytes, size: '1000x1000' })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => i.path).sort()).toEqual(['prompt', 'size']);
    expect(seen.uploads).toEqual([]);
    expect(seen.submissions).toEqual([]);
  });

  it('a bad file is reported with its field, with the other issues, before any upload', async () => {
    const seen = service();
    const error = (await client.videos
      .generate({ prompt: 'run', images: [png.bytes, fixture('tiny.gif').bytes], resolution: '8K' as never })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: 'images[1]', message: 'must be PNG, JPEG, WebP (found GIF)' },
        expect.objectContaining({ path: 'resolution' }),
      ]),
    );
    expect(seen.uploads).toEqual([]);
  });

  it('a video where an image goes (and the reverse) is refused before upload', async () => {
    const seen = service();
    await expect(client.images.edit({ model: 'm', prompt: 'p', image: mp4.bytes })).rejects.toThrow('image: must be PNG, JPEG, WebP (found MP4)');
    await expect(client.videos.edit({ prompt: 'p', input_video: png.bytes })).rejects.toThrow('input_video: must be MP4, MOV, WebM (found PNG)');
    expect(seen.uploads).toEqual([]);
  });

  it('a path given as a string is refused with a hint, not read from disk', async () => {
    const seen = service();
    const error = (await client.images.edit({ model: 'm', prompt: 'p', image: png.path.replace(/^\//, './') }).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues).toEqual([{ path: 'image', message: expect.stringMatching(/^must be an upload URL, not ".*tiny\.png" \(a string is never read as a path: pass fileFromPath\(\.\.\.\) to upload a file\)$/) }]);
    await expect(client.videos.generate({ prompt: 'p', images: ['photo.png'] })).rejects.toThrow(/images\[0\]: must be an upload URL/);
    expect(seen.uploads).toEqual([]);
    expect(seen.submissions).toEqual([]);
  });

  it('a failed upload fails the call and nothing is submitted', async () => {
    const seen = service();
    server.use(http.post(`${BASE_URL}/v1/uploads/images`, () => HttpResponse.json({ error: 'bad image' }, { status: 400 })));
    await expect(client.images.edit({ model: 'm', prompt: 'p', image: png.bytes })).rejects.toThrow(/uploads.image failed: 400/);
    expect(seen.submissions).toEqual([]);
  });
});

describe('expiry', () => {
  it('an expired upload record is refused before any request', async () => {
    const seen = service();
    const expired: ImageUpload = { url: 'https://files.example/old.png', expires_at: Math.floor(Date.now() / 1000) - 1 };
    const error = (await client.images.edit({ model: 'm', prompt: 'p', image: [png.bytes, expired] }).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([{ path: 'image[1]', message: expect.stringMatching(/^the upload expired at .*: upload the file again$/) }]);
    const video: VideoUpload = { upload_id: 'v', expires_at: 1 };
    await expect(client.videos.edit({ prompt: 'p', input_video: video })).rejects.toThrow(/input_video: the upload expired at 1970-01-01T00:00:01.000Z/);
    await expect(client.videos.generate({ prompt: 'p', images: [expired] })).rejects.toThrow(/images\[0\]: the upload expired/);
    expect(seen.uploads).toEqual([]);
    expect(seen.submissions).toEqual([]);
  });

  it('an upload record whose expires_at is in ms is refused once it passed (was sent: ms read as seconds is millennia ahead)', async () => {
    const seen = service();
    const expired: ImageUpload = { url: 'https://files.example/old.png', expires_at: Date.now() - 1000 };
    await expect(client.images.edit({ model: 'm', prompt: 'p', image: expired })).rejects.toThrow(
      new RegExp(`image: the upload expired at ${new Date(Date.now() - 1000).toISOString().slice(0, 16)}`),
    );
    expect(seen.submissions).toEqual([]);
  });

  it('a record that expires later is accepted', async () => {
    const seen = service();
    await client.images.edit({ model: 'm', prompt: 'p', image: { url: 'https://files.example/ok.png', expires_at: future } });
    expect(seen.submissions).toHaveLength(1);
  });
});
