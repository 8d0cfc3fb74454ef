import { createReadStream } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fileFromPath, OmniMedia, ServiceUnavailableError, ValidationError } from '../../src/index.ts';
import type { TransferProgress } from '../../src/resources/index.ts';
import { byteStream, fixture, sparseFile, tempDir } from '../helpers/fixtures.ts';
import { filePart, json, useLoopback } from '../helpers/loopback.ts';
import { API_KEY } from '../helpers/msw.ts';

const MiB = 1024 * 1024;
const dir = await tempDir();
const loopback = await useLoopback();
const client = new OmniMedia({ apiKey: API_KEY, baseURL: loopback.url });
const png = fixture('tiny.png');
const mp4 = fixture('tiny.mp4');

/** `size` bytes as a Node-style iterable of 1 MiB Buffers, the header first. */
function* chunksOf(header: Uint8Array, size: number): Generator<Buffer> {
  for (let sent = 0; sent < size; sent += MiB) {
    const chunk = Buffer.alloc(Math.min(MiB, size - sent));
    if (sent === 0) chunk.set(header);
    yield chunk;
  }
}

const imageRecord = (name = 'x.png') => ({
  url: `https://files.example/${name}`,
  filename: name,
  content_type: 'image/png',
  bytes: 87,
  width: 16,
  height: 16,
  created_at: 1_700_000_000,
  expires_at: 1_700_086_400,
});

/** Answer every upload with a record naming what arrived. */
function echoUploads() {
  loopback.handle(async (req, res) => {
    const file = await filePart(req);
    json(res, 200, {
      url: `https://files.example/${file.name}`,
      upload_id: `up_${file.name}`,
      filename: file.name,
      content_type: file.type,
      bytes: file.size,
    });
  });
}

describe('uploads over real HTTP (loopback)', () => {
  it.each([
    ['a path string', () => png.path, 'tiny.png'],
    ['fileFromPath', () => fileFromPath(png.path, 'renamed.png'), 'renamed.png'],
    ['a Blob', () => new Blob([png.bytes]), 'upload.png'],
    ['a File', () => new File([png.bytes], 'photo.png'), 'photo.png'],
    ['a Uint8Array', () => png.bytes, 'upload.png'],
    ['a Buffer', () => Buffer.from(png.bytes), 'upload.png'],
    ['an ArrayBuffer', () => png.bytes.slice().buffer, 'upload.png'],
    ['a web ReadableStream', () => new Blob([png.bytes]).stream(), 'upload.png'],
    ['a Node Readable (fs.ReadStream)', () => createReadStream(png.path), 'tiny.png'],
    ['a Node Readable (Readable.from)', () => Readable.from([Buffer.from(png.bytes)]), 'upload.png'],
    ['a fetch Response', () => new Response(png.bytes), 'upload.png'],
  ] as const)('%s: multipart field "file", sniffed type, right bytes, the key sent', async (_kind, input, filename) => {
    echoUploads();
    const record = await client.uploads.image(input());
    expect(record).toMatchObject({ filename, content_type: 'image/png', bytes: png.bytes.byteLength });
    const [request] = loopback.seen;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/uploads/images' });
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const file = await filePart(request!);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(png.bytes);
  });

  it('the filename option wins over every default', async () => {
    echoUploads();
    expect((await client.uploads.image(png.path, { filename: 'chosen.png' })).filename).toBe('chosen.png');
    expect((await client.uploads.image(createReadStream(png.path), { filename: 'chosen2.png' })).filename).toBe('chosen2.png');
  });

  it.each([
    ['tiny.mp4', 'video/mp4'],
    ['tiny.mov', 'video/quicktime'],
    ['tiny.webm', 'video/webm'],
  ] as const)('video %s is sent as %s, whatever its name says', async (name, type) => {
    echoUploads();
    const { path, bytes } = fixture(name);
    const record = await client.uploads.video(new File([bytes], 'misnamed.gif', { type: 'image/gif' }));
    expect(record).toMatchObject({ upload_id: 'up_misnamed.gif', content_type: type });
    expect(await client.uploads.video(path)).toMatchObject({ content_type: type });
  });

  it.each(['tiny.png', 'tiny.jpg', 'tiny.webp'] as const)('image %s is accepted', async (name) => {
    echoUploads();
    const type = { 'tiny.png': 'image/png', 'tiny.jpg': 'image/jpeg', 'tiny.webp': 'image/webp' }[name];
    expect(await client.uploads.image(fixture(name).path)).toMatchObject({ content_type: type });
  });

  it('a GIF is refused with "found GIF" and nothing is sent', async () => {
    const error = (await client.uploads.image(fixture('tiny.gif').path).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toBe('Invalid image upload: file: must be PNG, JPEG, WebP (found GIF)');
    expect(loopback.seen).toHaveLength(0);
  });

  it('a file over the limit is refused before sending; the exact limit is sent (image, 25 MiB)', async () => {
    echoUploads();
    const over = await sparseFile(join(dir, 'over.png'), png.bytes, 25 * MiB + 1);
    await expect(client.uploads.image(over)).rejects.toThrow(ValidationError);
    expect(loopback.seen).toHaveLength(0);
    loopback.handle((req, res) => json(res, 200, { ...imageRecord(), bytes: req.received }));
    const edge = await sparseFile(join(dir, 'edge.png'), png.bytes, 25 * MiB);
    const record = await client.uploads.image(edge);
    expect(record.bytes).toBeGreaterThan(25 * MiB); // the multipart body: the file plus its framing
    expect(loopback.seen[0]?.headers['content-length']).toBe(String(record.bytes));
  });

  it('a stream of unknown size: exactly 50 MiB is sent; one byte more aborts the upload with a ValidationError', async () => {
    loopback.handle((req, res) => json(res, 200, { upload_id: 'big', bytes: req.received }));
    const ok = await client.uploads.video(byteStream(mp4.bytes, 50 * MiB));
    expect(ok.bytes).toBeGreaterThan(50 * MiB);
    expect(loopback.seen[0]?.headers['transfer-encoding']).toBe('chunked');
    loopback.seen.length = 0;

    const error = (await client.uploads.video(byteStream(mp4.bytes, 50 * MiB + 1)).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues[0]?.message).toMatch(/^must be at most 50 MiB \(52,428,800 bytes\); the stream passed it/);
    await expect.poll(() => loopback.seen[0]?.aborted).toBe(true);
    expect(loopback.seen).toHaveLength(1); // a one-shot stream is never retried
  });

  it('an image stream of unknown size: exactly 25 MiB is sent; one byte more is refused at the limit', async () => {
    loopback.handle((req, res) => json(res, 200, { ...imageRecord(), bytes: req.received }));
    expect((await client.uploads.image(Readable.from(chunksOf(png.bytes, 25 * MiB)))).bytes).toBeGreaterThan(25 * MiB);
    loopback.seen.length = 0;
    const error = (await client.uploads.image(Readable.from(chunksOf(png.bytes, 25 * MiB + 1))).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues[0]?.message).toMatch(/^must be at most 25 MiB \(26,214,400 bytes\); the stream passed it/);
    await expect.poll(() => loopback.seen[0]?.aborted).toBe(true);
  });

  it('a Response with Content-Length is streamed with an exact Content-Length', async () => {
    loopback.handle((req, res) => json(res, 200, { ...imageRecord(), bytes: req.received }));
    const record = await client.uploads.image(new Response(png.bytes, { headers: { 'content-length': String(png.bytes.byteLength) } }));
    expect(loopback.seen[0]?.headers['content-length']).toBe(String(record.bytes));
    expect(new Uint8Array(await (await filePart(loopback.seen[0]!)).arrayBuffer())).toEqual(png.bytes);
  });

  it('progress: from 0 to the size, in order, for a path', async () => {
    loopback.handle((_req, res) => json(res, 200, imageRecord()));
    const big = await sparseFile(join(dir, 'progress.mp4'), mp4.bytes, 3 * MiB + 5);
    const seen: TransferProgress[] = [];
    loopback.handle((req, res) => json(res, 200, { upload_id: 'p', bytes: req.received }));
    await client.uploads.video(big, { onProgress: (p) => seen.push(p) });
    expect(seen[0]).toEqual({ loaded: 0, total: 3 * MiB + 5 });
    expect(seen.at(-1)).toEqual({ loaded: 3 * MiB + 5, total: 3 * MiB + 5 });
    expect(seen.length).toBeGreaterThan(3);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.loaded).toBeGreaterThanOrEqual(seen[i - 1]!.loaded);
    // The watched upload still carries an exact Content-Length (not chunked).
    expect(Number(loopback.seen[0]?.headers['content-length'])).toBe(loopback.seen[0]?.received);
  });

  it('progress of a stream of unknown size has total undefined', async () => {
    loopback.handle((_req, res) => json(res, 200, { upload_id: 's' }));
    const seen: TransferProgress[] = [];
    await client.uploads.video(byteStream(mp4.bytes, 2 * MiB), { onProgress: (p) => seen.push(p) });
    expect(seen.at(-1)).toEqual({ loaded: 2 * MiB, total: undefined });
  });

  it('a retried upload (503) re-opens the file and sends all of it again', async () => {
    let calls = 0;
    loopback.handle(async (req, res) => {
      calls++;
      if (calls === 1) return void res.writeHead(503, { 'retry-after-ms': '1' }).end();
      const file = await filePart(req);
      json(res, 200, { upload_id: 'r', bytes: file.size });
    });
    const retrying = new OmniMedia({ apiKey: API_KEY, baseURL: loopback.url, maxRetries: 2 });
    const record = await retrying.uploads.video(mp4.path);
    expect(record.bytes).toBe(mp4.bytes.byteLength);
    expect(loopback.seen.map((r) => r.received)).toEqual([loopback.seen[1]!.received, loopback.seen[1]!.received]);
  });

  it('an abort mid-upload stops the upload and rejects with the reason', async () => {
    loopback.handle((_req, res) => json(res, 200, { upload_id: 'never' }));
    const controller = new AbortController();
    const big = await sparseFile(join(dir, 'abort.mp4'), mp4.bytes, 20 * MiB);
    const pending = client.uploads.video(big, {
      signal: controller.signal,
      onProgress: ({ loaded }) => loaded > 2 * MiB && controller.abort(new Error('user cancelled')),
    });
    await expect(pending).rejects.toThrow('user cancelled');
    await expect.poll(() => loopback.seen[0]?.aborted).toBe(true);
    expect(loopback.seen[0]!.received).toBeLessThan(20 * MiB);
  });

  it('a failed upload lets go of its source (the stream is destroyed, not left half-read)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const source = Readable.from(chunksOf(mp4.bytes, 5 * MiB));
    const refused = new OmniMedia({ apiKey: API_KEY, baseURL: `http://127.0.0.1:${port}` });
    await expect(refused.uploads.video(source)).rejects.toThrow(/could not reach http:\/\/127\.0\.0\.1:\d+\/ \(ECONNREFUSED\)/);
    await expect.poll(() => source.destroyed).toBe(true);
  });

  it('a one-shot stream is not retried: the 503 reaches the caller', async () => {
    loopback.handle((_req, res) => void res.writeHead(503, { 'retry-after-ms': '1' }).end());
    const retrying = new OmniMedia({ apiKey: API_KEY, baseURL: loopback.url, maxRetries: 2 });
    await expect(retrying.uploads.video(createReadStream(mp4.path))).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(loopback.seen).toHaveLength(1);
  });

  it('an upload is not redirected (the body is never held for a replay)', async () => {
    loopback.handle((_req, res) => void res.writeHead(307, { location: '/v1/uploads/elsewhere' }).end());
    await expect(client.uploads.image(png.path)).rejects.toThrow(/answered with a redirect/);
    expect(loopback.seen.map((r) => r.path)).toEqual(['/v1/uploads/images']);
  });
});
