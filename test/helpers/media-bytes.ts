// The first bytes of each file type the upload endpoints sniff, padded to any size.

const MiB = 1024 * 1024;
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const HEADS = {
  png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, ...ascii('IHDR')],
  jpeg: [0xff, 0xd8, 0xff, 0xe0, 0, 16, ...ascii('JFIF')],
  webp: [...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WEBPVP8 ')],
  gif: ascii('GIF89a'),
  mp4: [0, 0, 0, 0x20, ...ascii('ftypisom'), 0, 0, 2, 0],
  mov: [0, 0, 0, 0x14, ...ascii('ftypqt  ')],
  webm: [0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84, ...ascii('webm')],
} as const;

export type MediaKind = keyof typeof HEADS;

/** `size` bytes that sniff as `kind`; the rest is a recognisable pattern so a test can compare. */
export function mediaBytes(kind: MediaKind, size = 1024): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 251;
  bytes.set(HEADS[kind].slice(0, size));
  return bytes;
}

export const mib = (n: number) => n * MiB;
