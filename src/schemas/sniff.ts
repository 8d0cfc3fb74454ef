/**
 * What the first bytes of a file say it is.
 *
 * @example
 * ```ts
 * const type = sniffMediaType(new Uint8Array(await file.slice(0, 64).arrayBuffer()));
 * if (type) console.log(type.label, type.mediaType); // PNG image/png
 * ```
 */
export interface SniffedType {
  /** The media type sent as the part's Content-Type, e.g. `image/png`. */
  mediaType: string;
  /** A short name for messages, e.g. `PNG`. */
  label: string;
}

/** How many leading bytes {@link sniffMediaType} needs. */
export const SNIFF_BYTES = 64;

const ascii = (bytes: Uint8Array, start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  signature.every((byte, i) => bytes[offset + i] === byte);

/**
 * The media type from the file's first bytes (not its name). Knows the accepted types (PNG,
 * JPEG, WebP; MP4, MOV, WebM) and a few common rejected ones so an error can say what was
 * found ("GIF"). `undefined` when nothing matches.
 *
 * @example
 * ```ts
 * const head = new Uint8Array(await file.slice(0, 64).arrayBuffer());
 * sniffMediaType(head)?.label; // 'PNG', 'JPEG', 'MP4', ... or undefined
 * ```
 */
export function sniffMediaType(bytes: Uint8Array): SniffedType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mediaType: 'image/png', label: 'PNG' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { mediaType: 'image/jpeg', label: 'JPEG' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return { mediaType: 'image/webp', label: 'WebP' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'AVI ') return { mediaType: 'video/x-msvideo', label: 'AVI' };
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WAVE') return { mediaType: 'audio/wav', label: 'WAV' };
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return { mediaType: 'image/gif', label: 'GIF' };
  if (ascii(bytes, 0, 2) === 'BM') return { mediaType: 'image/bmp', label: 'BMP' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a]))
    return { mediaType: 'image/tiff', label: 'TIFF' };
  if (ascii(bytes, 0, 4) === '%PDF') return { mediaType: 'application/pdf', label: 'PDF' };
  if (ascii(bytes, 4, 8) === 'ftyp') return sniffIsoBrand(ascii(bytes, 8, 12));
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) {
    // EBML: WebM and Matroska share the container; the DocType says which.
    const head = ascii(bytes, 0, Math.min(bytes.length, SNIFF_BYTES));
    return head.includes('webm') ? { mediaType: 'video/webm', label: 'WebM' } : { mediaType: 'video/x-matroska', label: 'Matroska' };
  }
  return undefined;
}

function sniffIsoBrand(brand: string): SniffedType {
  if (brand === 'qt  ') return { mediaType: 'video/quicktime', label: 'MOV' };
  if (brand === 'avif' || brand === 'avis') return { mediaType: 'image/avif', label: 'AVIF' };
  if (['heic', 'heix', 'hevc', 'hevx', 'mif1', 'msf1'].includes(brand)) return { mediaType: 'image/heic', label: 'HEIC' };
  if (brand.startsWith('3g')) return { mediaType: 'video/3gpp', label: '3GP' };
  if (brand === 'M4A ' || brand === 'M4B ') return { mediaType: 'audio/mp4', label: 'M4A' };
  // isom, iso2-iso9, mp41, mp42, avc1, M4V, dash, ...: all MP4.
  return { mediaType: 'video/mp4', label: 'MP4' };
}
