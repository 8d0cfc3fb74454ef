// The bytes behind result URLs: a PNG of the requested size for image tasks, the committed
// sample MP4 for video tasks.
import { coloursFor, encodePng } from './png.ts';
import { SAMPLE_MP4_BASE64 } from './sample-video.ts';

let sampleMp4: Uint8Array | undefined;

/** The sample MP4's bytes (decoded once). */
export function sampleMp4Bytes(): Uint8Array {
  if (!sampleMp4) {
    const binary = atob(SAMPLE_MP4_BASE64);
    sampleMp4 = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  }
  return sampleMp4;
}

const MAX_CACHED_PNGS = 16;

/** PNGs by `taskId/index`, so repeated downloads return the same bytes without re-encoding. */
export class PngCache {
  readonly #cache = new Map<string, Promise<Uint8Array>>();

  get(key: string, width: number, height: number): Promise<Uint8Array> {
    let png = this.#cache.get(key);
    if (!png) {
      const [from, to] = coloursFor(key);
      png = encodePng(width, height, from, to);
      this.#cache.set(key, png);
      if (this.#cache.size > MAX_CACHED_PNGS) this.#cache.delete(this.#cache.keys().next().value as string);
    }
    return png;
  }

  clear(): void {
    this.#cache.clear();
  }
}
