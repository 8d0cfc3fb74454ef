// Width and height from an image's header, as the service reports them in the upload record.
// Only the three accepted types (PNG, JPEG, WebP) are read; the pixels never are.

export interface Dimensions {
  width: number;
  height: number;
}

const ascii = (bytes: Uint8Array, start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** PNG: the IHDR chunk comes first, right after the 8-byte signature. */
function pngDimensions(bytes: Uint8Array): Dimensions | undefined {
  if (bytes.length < 24 || ascii(bytes, 12, 16) !== 'IHDR') return undefined;
  const data = view(bytes);
  return { width: data.getUint32(16), height: data.getUint32(20) };
}

// Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** JPEG: walk the marker segments to the first start-of-frame. */
function jpegDimensions(bytes: Uint8Array): Dimensions | undefined {
  const data = view(bytes);
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] ?? 0;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    // Standalone markers have no length field.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      offset += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image, or scan data before any frame
    const length = data.getUint16(offset + 2);
    if (SOF_MARKERS.has(marker)) {
      if (offset + 9 > bytes.length) return undefined;
      return { height: data.getUint16(offset + 5), width: data.getUint16(offset + 7) };
    }
    offset += 2 + length;
  }
  return undefined;
}

/** WebP: lossy (VP8), lossless (VP8L) or extended (VP8X) headers. */
function webpDimensions(bytes: Uint8Array): Dimensions | undefined {
  if (bytes.length < 30) return undefined;
  const data = view(bytes);
  const chunk = ascii(bytes, 12, 16);
  if (chunk === 'VP8 ') {
    // Frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return undefined;
    return { width: data.getUint16(26, true) & 0x3fff, height: data.getUint16(28, true) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) return undefined;
    const bits = data.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    const uint24 = (at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) | ((bytes[at + 2] ?? 0) << 16);
    return { width: uint24(24) + 1, height: uint24(27) + 1 };
  }
  return undefined;
}

/** The image's size from its header, or `undefined` when the header is unreadable. */
export function imageDimensions(bytes: Uint8Array, mediaType: string): Dimensions | undefined {
  const found =
    mediaType === 'image/png'
      ? pngDimensions(bytes)
      : mediaType === 'image/jpeg'
        ? jpegDimensions(bytes)
        : mediaType === 'image/webp'
          ? webpDimensions(bytes)
          : undefined;
  return found && found.width > 0 && found.height > 0 ? found : undefined;
}
