import { Readable } from 'node:stream';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileFromPath, ValidationError } from '../../src/index.ts';
import { FileFromPath } from '../../src/schemas/file-input.ts';
import { sniffMediaType } from '../../src/schemas/index.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, isFileInput, prepareFile, type PreparedFile } from '../../src/uploads/inputs.ts';
import { byteStream, fixture, sparseFile, tempDir } from '../helpers/fixtures.ts';

const MiB = 1024 * 1024;
const dir = await tempDir();

async function bytesOf(file: PreparedFile): Promise<Uint8Array> {
  const stream = file.source.replayable ? (await file.source.open()).stream() : file.source.stream;
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe('sniffing real files', () => {
  it.each([
    ['tiny.png', 'image/png', 'PNG'],
    ['tiny.jpg', 'image/jpeg', 'JPEG'],
    ['tiny.webp', 'image/webp', 'WebP'],
    ['tiny.gif', 'image/gif', 'GIF'],
    ['tiny.mp4', 'video/mp4', 'MP4'],
    ['tiny.mov', 'video/quicktime', 'MOV'],
    ['tiny.webm', 'video/webm', 'WebM'],
  ] as const)('%s is %s', (name, mediaType, label) => {
    expect(sniffMediaType(fixture(name).bytes)).toEqual({ mediaType, label });
  });

  it('takes the type from the bytes, not the name', async () => {
    const png = fixture('tiny.png').bytes;
    const file = await prepareFile(new File([png], 'photo.jpg', { type: 'image/jpeg' }), IMAGE_UPLOAD_RULE);
    expect(file.type.mediaType).toBe('image/png');
    expect(file.filename).toBe('photo.jpg');
  });

  it('names what it found when the type is refused (GIF), before anything is read further', async () => {
    const error = await prepareFile(fixture('tiny.gif').path, IMAGE_UPLOAD_RULE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: 'file', message: 'must be PNG, JPEG, WebP (found GIF)' }]);
  });

  it('refuses an image where a video is expected and says which', async () => {
    const error = (await prepareFile(fixture('tiny.png').bytes, VIDEO_UPLOAD_RULE).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues[0]?.message).toBe('must be MP4, MOV, WebM (found PNG)');
  });

  it('refuses unknown bytes and empty files', async () => {
    const unknown = (await prepareFile(new TextEncoder().encode('hello, world'), IMAGE_UPLOAD_RULE).catch((e: unknown) => e)) as ValidationError;
    expect(unknown.issues[0]?.message).toBe('must be PNG, JPEG, WebP (found an unrecognised file type)');
    const empty = (await prepareFile(new Blob([]), IMAGE_UPLOAD_RULE).catch((e: unknown) => e)) as ValidationError;
    expect(empty.issues[0]?.message).toBe('is empty');
    const emptyStream = (await prepareFile(new ReadableStream({ start: (c) => c.close() }), IMAGE_UPLOAD_RULE).catch((e: unknown) => e)) as ValidationError;
    expect(emptyStream.issues[0]?.message).toBe('is empty');
  });
});

describe('every input kind', () => {
  const png = fixture('tiny.png');
  const mp4 = fixture('tiny.mp4');

  it('a path string: name from the path, bytes read lazily', async () => {
    const file = await prepareFile(png.path, IMAGE_UPLOAD_RULE);
    expect(file).toMatchObject({ filename: 'tiny.png', type: { label: 'PNG' }, source: { replayable: true, size: png.bytes.byteLength } });
    expect(await bytesOf(file)).toEqual(png.bytes);
  });

  it('fileFromPath: a lazy reference with an optional name', async () => {
    expect(fileFromPath(mp4.path)).toBeInstanceOf(FileFromPath);
    expect(fileFromPath(mp4.path).name).toBe('tiny.mp4');
    const file = await prepareFile(fileFromPath(mp4.path, 'clip.mp4'), VIDEO_UPLOAD_RULE);
    expect(file.filename).toBe('clip.mp4');
    expect(await bytesOf(file)).toEqual(mp4.bytes);
  });

  it('a missing path is a ValidationError naming it', async () => {
    const error = (await prepareFile(join(dir, 'nope.png'), IMAGE_UPLOAD_RULE).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues[0]?.message).toMatch(/".*nope\.png" was not found: check the path/);
  });

  it('a Blob (default name from the type) and a File (its name)', async () => {
    expect((await prepareFile(new Blob([png.bytes]), IMAGE_UPLOAD_RULE)).filename).toBe('upload.png');
    expect((await prepareFile(new File([png.bytes], 'a.png'), IMAGE_UPLOAD_RULE)).filename).toBe('a.png');
    expect((await prepareFile(new Blob([fixture('tiny.jpg').bytes]), IMAGE_UPLOAD_RULE)).filename).toBe('upload.jpg');
  });

  it('a Uint8Array, a Buffer and an ArrayBuffer', async () => {
    for (const input of [png.bytes, Buffer.from(png.bytes), png.bytes.slice().buffer]) {
      const file = await prepareFile(input, IMAGE_UPLOAD_RULE, { filename: 'x.png' });
      expect(file.filename).toBe('x.png');
      expect(await bytesOf(file)).toEqual(png.bytes);
    }
  });

  it('a web ReadableStream: one-shot, the sniffed head is replayed in front of the rest', async () => {
    // Chunks of 3 bytes: the head spans many chunks.
    const chunks = Array.from({ length: Math.ceil(mp4.bytes.byteLength / 3) }, (_, i) => mp4.bytes.slice(i * 3, i * 3 + 3));
    const stream = new ReadableStream<Uint8Array>({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
    const file = await prepareFile(stream, VIDEO_UPLOAD_RULE, { filename: 'clip.mp4' });
    expect(file.source).toMatchObject({ replayable: false, size: undefined });
    expect(await bytesOf(file)).toEqual(mp4.bytes);
  });

  it('a Node Readable: a fs.ReadStream gives its name; Readable.from any bytes', async () => {
    const fromFs = await prepareFile(createReadStream(mp4.path, { highWaterMark: 100 }), VIDEO_UPLOAD_RULE);
    expect(fromFs.filename).toBe('tiny.mp4');
    expect(await bytesOf(fromFs)).toEqual(mp4.bytes);
    const fromIterable = await prepareFile(Readable.from([Buffer.from(mp4.bytes)]), VIDEO_UPLOAD_RULE);
    expect(fromIterable.filename).toBe('upload.mp4');
    expect(await bytesOf(fromIterable)).toEqual(mp4.bytes);
  });

  it('a Node Readable of strings is refused', async () => {
    const error = (await prepareFile(Readable.from(['not bytes']), IMAGE_UPLOAD_RULE).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues[0]?.message).toMatch(/must yield bytes/);
  });

  it('a fetch Response: Content-Length is the known size, the URL gives the name', async () => {
    const response = new Response(png.bytes, { headers: { 'content-length': String(png.bytes.byteLength) } });
    Object.defineProperty(response, 'url', { value: 'https://cdn.example/p/photo.png?sig=1' });
    const file = await prepareFile(response, IMAGE_UPLOAD_RULE);
    expect(file).toMatchObject({ filename: 'photo.png', source: { replayable: false, size: png.bytes.byteLength } });
    expect(await bytesOf(file)).toEqual(png.bytes);
    const failed = (await prepareFile(new Response('nope', { status: 404 }), IMAGE_UPLOAD_RULE).catch((e: unknown) => e)) as ValidationError;
    expect(failed.issues[0]?.message).toBe('the Response has status 404, not a file to upload');
  });

  it('anything else is refused with the list of kinds', async () => {
    const error = (await prepareFile({ nope: true } as never, IMAGE_UPLOAD_RULE).catch((e: unknown) => e)) as ValidationError;
    expect(error.issues[0]?.message).toMatch(/^must be a file path, fileFromPath\(path\), Blob/);
  });

  it('isFileInput: file objects yes; strings and upload records no', () => {
    for (const v of [fileFromPath('x'), new Blob([]), new Uint8Array(1), new ArrayBuffer(1), new ReadableStream(), Readable.from([]), new Response('')])
      expect(isFileInput(v)).toBe(true);
    for (const v of ['https://u/x.png', { url: 'https://u/x.png' }, { upload_id: 'v' }, null, 3]) expect(isFileInput(v)).toBe(false);
  });
});

describe('limits (MiB: 25 MiB images, 50 MiB videos)', () => {
  const png = fixture('tiny.png').bytes;
  const mp4 = fixture('tiny.mp4').bytes;

  it.each([
    ['image', IMAGE_UPLOAD_RULE, png, 25 * MiB],
    ['video', VIDEO_UPLOAD_RULE, mp4, 50 * MiB],
  ] as const)('%s from a path: the exact limit passes, one byte more fails', async (kind, rule, header, limit) => {
    const edge = await sparseFile(join(dir, `${kind}-edge`), header, limit);
    expect((await prepareFile(edge, rule)).source.size).toBe(limit);
    const over = await sparseFile(join(dir, `${kind}-over`), header, limit + 1);
    const error = (await prepareFile(over, rule).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues[0]?.message).toBe(
      `must be at most ${limit / MiB} MiB (${limit.toLocaleString('en-US')} bytes); got ${(limit + 1).toLocaleString('en-US')} bytes`,
    );
  });

  it('a Blob of exactly 25 MiB passes, 25 MiB + 1 fails', async () => {
    const body = new Uint8Array(25 * MiB);
    body.set(png);
    await expect(prepareFile(new Blob([body]), IMAGE_UPLOAD_RULE)).resolves.toBeTruthy();
    await expect(prepareFile(new Blob([body, new Uint8Array(1)]), IMAGE_UPLOAD_RULE)).rejects.toThrow(/at most 25 MiB/);
  });

  it('a Response whose Content-Length is over the limit fails before anything is sent', async () => {
    const response = new Response(byteStream(mp4, 64), { headers: { 'content-length': String(50 * MiB + 1) } });
    await expect(prepareFile(response, VIDEO_UPLOAD_RULE)).rejects.toThrow(/at most 50 MiB/);
  });

  it('a stream of unknown size passes the first check (it is counted as it is sent)', async () => {
    const file = await prepareFile(byteStream(mp4, 50 * MiB + 1), VIDEO_UPLOAD_RULE);
    expect(file.source.size).toBeUndefined();
    if (!file.source.replayable) await file.source.stream.cancel();
  });
});
