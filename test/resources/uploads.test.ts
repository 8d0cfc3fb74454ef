import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia, ValidationError } from 'omnimedia';
import { mediaBytes, mib } from '../helpers/media-bytes.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { countAllRequests, json, recordRoute, type SeenRequest, expectRejectedLocally } from '../helpers/wire.ts';

const server = useMsw();
const rejectsLocally = (call: () => Promise<unknown>) => expectRejectedLocally(server, call);
const client = () => new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, maxRetries: 0 });

const IMAGE_RECORD = {
  url: 'https://uploads.test/u/1.png',
  filename: 'upload.png',
  content_type: 'image/png',
  bytes: 1024,
  width: 64,
  height: 64,
  created_at: 1_700_000_000,
  expires_at: 1_700_086_400,
};
const VIDEO_RECORD = {
  upload_id: 'up_1',
  url: 'https://uploads.test/u/1.mp4',
  filename: 'clip.mp4',
  content_type: 'video/mp4',
  bytes: 2048,
  created_at: 1_700_000_000,
  expires_at: 1_700_086_400,
};

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-uploads-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The multipart request's `file` part, checked to be the only part. */
async function filePart(request: SeenRequest | undefined): Promise<{ name: string; type: string; bytes: Uint8Array }> {
  expect(request?.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
  const form = request?.form;
  expect([...(form?.keys() ?? [])]).toEqual(['file']);
  const file = form?.get('file');
  expect(file).toBeInstanceOf(File);
  const part = file as File;
  return { name: part.name, type: part.type, bytes: new Uint8Array(await part.arrayBuffer()) };
}

describe('uploads.image: the wire request', () => {
  it('bytes: POST /v1/uploads/images, bearer key, multipart `file` typed from the bytes', async () => {
    const seen = recordRoute(server, 'post', '/v1/uploads/images', json(IMAGE_RECORD));
    const bytes = mediaBytes('png', 1024);
    const record = await client().uploads.image(bytes);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/uploads/images');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(await filePart(request)).toEqual({ name: 'upload.png', type: 'image/png', bytes });
    expect(record).toEqual(IMAGE_RECORD);
  });

  it('a File keeps its name; its declared type is not trusted, the bytes decide', async () => {
    const seen = recordRoute(server, 'post', '/v1/uploads/images', json(IMAGE_RECORD));
    const bytes = mediaBytes('jpeg', 2000);
    await client().uploads.image(new File([bytes], 'photo.png', { type: 'image/png' }));
    expect(await filePart(seen[0])).toEqual({ name: 'photo.png', type: 'image/jpeg', bytes });
  });

  it('a Blob gets a name from its sniffed type; the filename option wins', async () => {
    const seen = recordRoute(server, 'post', '/v1/uploads/images', json(IMAGE_RECORD));
    const bytes = mediaBytes('webp', 512);
    await client().uploads.image(new Blob([bytes]));
    await client().uploads.image(new Blob([bytes]), { filename: 'cover.webp' });
    expect(await filePart(seen[0])).toEqual({ name: 'upload.webp', type: 'image/webp', bytes });
    expect((await filePart(seen[1])).name).toBe('cover.webp');
  });

  it('a path (Node) sends the file under its base name', async () => {
    const seen = recordRoute(server, 'post', '/v1/uploads/images', json(IMAGE_RECORD));
    const bytes = mediaBytes('png', 4096);
    const path = join(dir, 'sunset.png');
    await writeFile(path, bytes);
    await client().uploads.image(path);
    expect(await filePart(seen[0])).toEqual({ name: 'sunset.png', type: 'image/png', bytes });
  });

  it('an ArrayBuffer is bytes too', async () => {
    const seen = recordRoute(server, 'post', '/v1/uploads/images', json(IMAGE_RECORD));
    const bytes = mediaBytes('png', 100);
    await client().uploads.image(bytes.buffer);
    expect((await filePart(seen[0])).bytes).toEqual(bytes);
  });
});

describe('uploads.video: the wire request', () => {
  it.each([
    ['mp4', 'video/mp4', 'upload.mp4'],
    ['mov', 'video/quicktime', 'upload.mov'],
    ['webm', 'video/webm', 'upload.webm'],
  ] as const)('%s: POST /v1/uploads/videos as %s', async (kind, type, name) => {
    const seen = recordRoute(server, 'post', '/v1/uploads/videos', json(VIDEO_RECORD));
    const bytes = mediaBytes(kind, 2048);
    const record = await client().uploads.video(bytes);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/uploads/videos');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(await filePart(request)).toEqual({ name, type, bytes });
    expect(record.upload_id).toBe('up_1');
  });

  it('a video record without upload_id is an APIError', async () => {
    recordRoute(server, 'post', '/v1/uploads/videos', json({ url: 'https://uploads.test/x.mp4' }));
    const error = await client().uploads.video(mediaBytes('mp4')).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'APIError', message: expect.stringMatching(/upload_id/) });
  });
});

describe('uploads: local checks, nothing sent', () => {
  it('a GIF image is refused, naming GIF', async () => {
    const error = await rejectsLocally(() => client().uploads.image(mediaBytes('gif')));
    expect(error.issues).toEqual([{ path: 'file', message: 'must be PNG, JPEG, WebP (found GIF)' }]);
    expect(error.message).toContain('GIF');
  });

  it('a GIF named .png is still a GIF', async () => {
    const error = await rejectsLocally(() => client().uploads.image(new File([mediaBytes('gif')], 'fake.png', { type: 'image/png' })));
    expect(error.issues[0]?.message).toContain('found GIF');
  });

  it('a video is not an image, and an image is not a video', async () => {
    const image = await rejectsLocally(() => client().uploads.image(mediaBytes('mp4')));
    expect(image.issues[0]?.message).toBe('must be PNG, JPEG, WebP (found MP4)');
    const video = await rejectsLocally(() => client().uploads.video(mediaBytes('png')));
    expect(video.issues[0]?.message).toBe('must be MP4, MOV, WebM (found PNG)');
  });

  it('unrecognised and empty files are refused', async () => {
    const unknown = await rejectsLocally(() => client().uploads.image(new Uint8Array(100).fill(7)));
    expect(unknown.issues[0]?.message).toBe('must be PNG, JPEG, WebP (found an unrecognised file type)');
    const empty = await rejectsLocally(() => client().uploads.image(new Uint8Array(0)));
    expect(empty.issues).toEqual([{ path: 'file', message: 'is empty' }]);
  });

  it('a 26 MiB image is refused; exactly 25 MiB is sent', async () => {
    const error = await rejectsLocally(() => client().uploads.image(mediaBytes('png', mib(26))));
    expect(error.issues).toEqual([
      { path: 'file', message: 'must be at most 25 MiB (26,214,400 bytes); got 27,262,976 bytes' },
    ]);
    const seen = recordRoute(server, 'post', '/v1/uploads/images', json(IMAGE_RECORD));
    await client().uploads.image(mediaBytes('png', mib(25)));
    expect((await filePart(seen[0])).bytes.length).toBe(mib(25));
  });

  it('a 51 MiB video is refused', async () => {
    const error = await rejectsLocally(() => client().uploads.video(mediaBytes('mp4', mib(51))));
    expect(error.issues).toEqual([
      { path: 'file', message: 'must be at most 50 MiB (52,428,800 bytes); got 53,477,376 bytes' },
    ]);
  });

  it('a path that does not exist is a ValidationError', async () => {
    const error = await rejectsLocally(() => client().uploads.image(join(dir, 'missing.png')));
    expect(error.issues[0]).toMatchObject({ path: 'file', message: expect.stringMatching(/was not found/) });
  });
});
