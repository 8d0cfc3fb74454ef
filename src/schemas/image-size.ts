/**
 * `auto` or `WIDTHxHEIGHT`. The service's rules are checked by {@link imageSizeProblem}.
 *
 * @example
 * ```ts
 * const size: ImageSize = '1536x1024';
 * if (imageSizeProblem(size)) throw new Error(imageSizeProblem(size));
 * ```
 */
export type ImageSize = 'auto' | `${number}x${number}`;

/** `WIDTHxHEIGHT` as a pattern: what JSON Schema can say of a size (the other rules it cannot). */
const WXH = '(\\d{1,5})x(\\d{1,5})';
const WXH_EXACT = new RegExp(`^${WXH}$`);
/** `auto` or `WIDTHxHEIGHT`, for a JSON Schema `pattern`. */
export const IMAGE_SIZE_PATTERN = `^(?:auto|${WXH})$`;

/** The limits of a `WIDTHxHEIGHT` size (the agents' tool descriptions state them too). */
export const MAX_SIDE = 3840;
export const MAX_RATIO = 3;
export const MIN_PIXELS = 655_360;
export const MAX_PIXELS = 8_294_400;

/**
 * The rule a `size` breaks, or `undefined` when the service accepts it: both sides multiples
 * of 16, the longer side at most 3840, aspect ratio at most 3:1, 655,360 to 8,294,400 pixels.
 *
 * @example
 * ```ts
 * imageSizeProblem('1024x1024'); // undefined: accepted
 * imageSizeProblem('1000x1000'); // 'both sides must be multiples of 16 (got 1000x1000)'
 * ```
 */
export function imageSizeProblem(size: string): string | undefined {
  if (size === 'auto') return undefined;
  const match = WXH_EXACT.exec(size);
  if (!match) return 'must be "auto" or "WIDTHxHEIGHT", e.g. "1024x1024"';
  const width = Number(match[1]);
  const height = Number(match[2]);
  const longer = Math.max(width, height);
  const shorter = Math.min(width, height);
  if (width % 16 !== 0 || height % 16 !== 0) return `both sides must be multiples of 16 (got ${size})`;
  if (longer > MAX_SIDE) return `the longer side must be at most ${MAX_SIDE} (got ${longer})`;
  if (longer > MAX_RATIO * shorter) return `the aspect ratio must be at most 3:1 (got ${size})`;
  const pixels = width * height;
  if (pixels < MIN_PIXELS || pixels > MAX_PIXELS)
    return `the pixel count must be 655,360 to 8,294,400 (got ${pixels.toLocaleString('en-US')})`;
  return undefined;
}
