// The inputs the guides' examples read (`./photo.png`, `./clip.mp4`...), so that a newcomer
// without media of their own can run every example as written: `npx omnimedia mock --samples DIR`.
import { encodePng, type Rgb } from './png.ts';
import { sampleMp4Bytes } from './results.ts';

/** 1024x1024: the common square size of the service's images (and a mask matches its image). */
const SIDE = 1024;
const IMAGES: readonly (readonly [name: string, from: Rgb, to: Rgb])[] = [
  ['photo.png', [32, 96, 160], [240, 160, 64]],
  ['mask.png', [0, 0, 0], [255, 255, 255]],
  ['cat.png', [200, 120, 40], [250, 230, 200]],
  ['sofa.png', [60, 90, 60], [180, 200, 150]],
  ['lamp.png', [250, 220, 120], [40, 40, 60]],
];

/**
 * The sample inputs the guides' examples read, by file name: five 1024x1024 PNG images
 * (`photo.png`, `mask.png`, `cat.png`, `sofa.png`, `lamp.png`) and a 1-second H.264 MP4
 * (`clip.mp4`). They pass the service's upload checks; `npx omnimedia mock --samples DIR`
 * writes them into `DIR`.
 *
 * @example
 * ```ts
 * import { writeFile } from 'node:fs/promises';
 * import { sampleFiles } from 'omnimedia/testing';
 *
 * for (const [name, bytes] of await sampleFiles()) await writeFile(name, bytes);
 * ```
 */
export async function sampleFiles(): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const [name, from, to] of IMAGES) files.set(name, await encodePng(SIDE, SIDE, from, to));
  files.set('clip.mp4', sampleMp4Bytes());
  return files;
}
