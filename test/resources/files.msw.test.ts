import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { OmniMedia } from '../../src/index.ts';
import type { TransferProgress } from '../../src/resources/index.ts';
import { byteStream, fixture } from '../helpers/fixtures.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';

const server = useMsw();
const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
const png = fixture('tiny.png');
const mp4 = fixture('tiny.mp4');

describe('files through MSW', () => {
  it('uploads a watched stream: the part arrives whole, typed by its bytes', async () => {
    let received: File | undefined;
    server.use(
      http.post(`${BASE_URL}/v1/uploads/videos`, async ({ request }) => {
        received = (await request.formData()).get('file') as File;
        return HttpResponse.json({ upload_id: 'v1' });
      }),
    );
    const progress: TransferProgress[] = [];
    await client.uploads.video(byteStream(mp4.bytes, 300_000, 65_536), { filename: 'clip.mp4', onProgress: (p) => progress.push(p) });
    expect(received).toMatchObject({ name: 'clip.mp4', type: 'video/mp4', size: 300_000 });
    expect(new Uint8Array(await received!.slice(0, mp4.bytes.byteLength).arrayBuffer())).toEqual(mp4.bytes);
    expect(progress.at(-1)).toEqual({ loaded: 300_000, total: undefined });
  });

  it('downloads a task’s outputs as Blobs without the API key', async () => {
    const auth: (string | null)[] = [];
    server.use(
      http.get('https://cdn.omnimedia.test/out/:name', ({ request, params }) => {
        auth.push(request.headers.get('authorization'));
        return new HttpResponse(params.name === 'a.png' ? png.bytes : mp4.bytes, { headers: { 'content-length': String(params.name === 'a.png' ? png.bytes.byteLength : mp4.bytes.byteLength) } });
      }),
    );
    const blobs = await client.files.download({
      task_id: 't',
      data: [{ url: 'https://cdn.omnimedia.test/out/a.png' }, { url: 'https://cdn.omnimedia.test/out/b.mp4' }],
    });
    expect(new Uint8Array(await blobs[0]!.arrayBuffer())).toEqual(png.bytes);
    expect(new Uint8Array(await blobs[1]!.arrayBuffer())).toEqual(mp4.bytes);
    expect(auth).toEqual([null, null]);
  });
});
