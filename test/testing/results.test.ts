// Result URLs serve real files: PNGs of the requested size, and the committed sample MP4.
import { readFileSync } from 'node:fs';
import { crc32, inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMockService, type MockService } from 'omnimedia/testing';
import { imageDimensions } from '../../src/testing/image-dimensions.ts';
import { encodePng } from '../../src/testing/png.ts';
import { SAMPLE_MP4_BASE64 } from '../../src/testing/sample-video.ts';
import { sniffMediaType } from '../../src/schemas/sniff.ts';
import { fixture, get, post } from './mock-helpers.ts';

/** Decode a PNG's chunks, checking every CRC and the pixel data's shape. */
function decodePng(png: Uint8Array): { width: number; height: number; colourType: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let offset = 8;
  const types: string[] = [];
  const idat: Uint8Array[] = [];
  let header: { width: number; height: number; colourType: number } | undefined;
  while (offset < png.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...png.subarray(offset + 4, offset + 8));
    const data = png.subarray(offset + 8, offset + 8 + length);
    expect(view.getUint32(offset + 8 + length)).toBe(crc32(png.subarray(offset + 4, offset + 8 + length)));
    types.push(type);
    if (type === 'IHDR') header = { width: view.getUint32(offset + 8), height: view.getUint32(offset + 12), colourType: data[9]! };
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  expect(types).toEqual(['IHDR', 'IDAT', 'IEND']);
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe(header!.height * (1 + header!.width * 3));
  for (let y = 0; y < header!.height; y++) expect([0, 2]).toContain(raw[y * (1 + header!.width * 3)]);
  return header!;
}

describe('PNG results', () => {
  it.each([
    [16, 16],
    [1536, 1024],
    [3840, 2160],
  ])('encodePng(%i, %i) is a valid RGB PNG of that size', async (width, height) => {
    const png = await encodePng(width, height);
    expect(decodePng(png)).toEqual({ width, height, colourType: 2 });
    expect(imageDimensions(png, 'image/png')).toEqual({ width, height });
  });

  it('a completed image task serves a PNG of the requested size at each data URL', async () => {
    vi.useFakeTimers();
    const mock: MockService = createMockService();
    try {
      const submitted = await post(mock, '/v1/images/generations', { model: 'm', prompt: 'p', size: '1024x1536', n: 2 });
      const { task_id } = (await submitted.json()) as { task_id: string };
      await vi.advanceTimersByTimeAsync(60_000);
      const task = mock.task(task_id) as { data: { url: string }[] };
      expect(task.data).toHaveLength(2);
      for (const { url } of task.data) {
        const response = await get(mock, url);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('image/png');
        const png = new Uint8Array(await response.arrayBuffer());
        expect(Number(response.headers.get('content-length'))).toBe(png.byteLength);
        expect(decodePng(png)).toMatchObject({ width: 1024, height: 1536 });
      }
      // The two images differ (each output has its own colours).
      const [a, b] = await Promise.all(task.data.map(async ({ url }) => Buffer.from(await (await get(mock, url)).arrayBuffer())));
      expect(a!.equals(b!)).toBe(false);
    } finally {
      mock.close();
      vi.useRealTimers();
    }
  });
});

/** The top-level boxes of an ISO media file; their sizes must tile the file exactly. */
function topLevelBoxes(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const boxes: string[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const size = view.getUint32(offset);
    expect(size).toBeGreaterThanOrEqual(8);
    boxes.push(String.fromCharCode(...bytes.subarray(offset + 4, offset + 8)));
    offset += size;
  }
  expect(offset).toBe(bytes.length);
  return boxes;
}

describe('MP4 results', () => {
  it('the embedded sample is the committed assets/sample.mp4', () => {
    const committed = readFileSync(new URL('../../src/testing/assets/sample.mp4', import.meta.url));
    expect(Buffer.from(SAMPLE_MP4_BASE64, 'base64').equals(committed)).toBe(true);
    expect(committed.byteLength).toBeLessThan(10_000);
  });

  it('a completed video task serves a valid MP4 (ftyp, moov before mdat)', async () => {
    vi.useFakeTimers();
    const mock = createMockService();
    try {
      const submitted = await post(mock, '/v1/video/generate', { model: 'omni_flash', messages: [{ role: 'user', content: 'x' }] });
      const { task_id } = (await submitted.json()) as { task_id: string };
      await vi.advanceTimersByTimeAsync(60_000);
      const url = (mock.task(task_id) as { data: { url: string }[] }).data[0]!.url;
      const response = await get(mock, url);
      expect(response.headers.get('content-type')).toBe('video/mp4');
      const mp4 = new Uint8Array(await response.arrayBuffer());
      expect(sniffMediaType(mp4)).toEqual({ mediaType: 'video/mp4', label: 'MP4' });
      const boxes = topLevelBoxes(mp4);
      expect(boxes[0]).toBe('ftyp');
      expect(boxes.indexOf('moov')).toBeGreaterThan(0);
      expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
      // HEAD answers the headers without the body.
      const head = await mock.handle(new Request(url, { method: 'HEAD' }));
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(mp4.byteLength));
    } finally {
      mock.close();
      vi.useRealTimers();
    }
  });
});

describe('imageDimensions', () => {
  it('reads JPEG, lossy and lossless WebP headers', () => {
    expect(imageDimensions(fixture('tiny.jpg'), 'image/jpeg')).toEqual({ width: 16, height: 16 });
    expect(imageDimensions(fixture('tiny.webp'), 'image/webp')).toEqual({ width: 16, height: 16 });
    expect(imageDimensions(fixture('tiny-lossless.webp'), 'image/webp')).toEqual({ width: 36, height: 20 });
  });

  it('reads an extended (VP8X) WebP header', () => {
    const bytes = new Uint8Array(30);
    bytes.set([...'RIFF'].map((c) => c.charCodeAt(0)), 0);
    bytes.set([...'WEBPVP8X'].map((c) => c.charCodeAt(0)), 8);
    // canvas width-1 = 1999 (0x07cf), height-1 = 999 (0x03e7), 24-bit little endian
    bytes.set([0xcf, 0x07, 0x00, 0xe7, 0x03, 0x00], 24);
    expect(imageDimensions(bytes, 'image/webp')).toEqual({ width: 2000, height: 1000 });
  });

  it('gives undefined for a truncated header', () => {
    expect(imageDimensions(fixture('tiny.jpg').subarray(0, 20), 'image/jpeg')).toBeUndefined();
    expect(imageDimensions(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'image/png')).toBeUndefined();
  });
});
