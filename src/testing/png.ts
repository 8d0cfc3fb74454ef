// A real PNG of any size, built with the platform's CompressionStream (Node >= 18, browsers,
// Deno, Bun, workers), so the mock runs wherever the SDK does: no node:zlib.
//
// The picture is a horizontal gradient between two colours. Every row after the first uses
// PNG's "Up" filter, so it is all zeros and deflates to almost nothing: a 3840x2160 result is
// a few KB and takes milliseconds.

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const FILTER_NONE = 0;
const FILTER_UP = 2;

let crcTable: Uint32Array | undefined;

function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function deflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export type Rgb = readonly [number, number, number];

/** An 8-bit RGB PNG of `width` x `height`, a gradient from `from` (left) to `to` (right). */
export async function encodePng(width: number, height: number, from: Rgb = [32, 96, 160], to: Rgb = [240, 160, 64]): Promise<Uint8Array> {
  const stride = 1 + width * 3;
  const raw = new Uint8Array(stride * height);
  raw[0] = FILTER_NONE;
  for (let x = 0; x < width; x++) {
    const t = width > 1 ? x / (width - 1) : 0;
    for (let c = 0; c < 3; c++) raw[1 + x * 3 + c] = Math.round((from[c] ?? 0) + ((to[c] ?? 0) - (from[c] ?? 0)) * t);
  }
  for (let y = 1; y < height; y++) raw[y * stride] = FILTER_UP;

  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const parts = [new Uint8Array(SIGNATURE), chunk('IHDR', header), chunk('IDAT', await deflate(raw)), chunk('IEND', new Uint8Array())];
  const png = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    png.set(part, offset);
    offset += part.length;
  }
  return png;
}

/** Two colours derived from a string, so different tasks give visibly different images. */
export function coloursFor(seed: string): [Rgb, Rgb] {
  let hash = 2166136261;
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 16777619) >>> 0;
  const colour = (h: number): Rgb => [64 + (h & 0x7f), 64 + ((h >>> 7) & 0x7f), 64 + ((h >>> 14) & 0x7f)];
  return [colour(hash), colour(Math.imul(hash, 2654435761) >>> 0)];
}
