// Does a text still hold a secret, in any form an echo may write it? The oracle of the redactor's
// tests, independent of its code: it decodes instead of matching patterns.

const BASE64_RUN = /[A-Za-z0-9+/_-]{2,}/g;

/** The bytes of a base64 or base64url run read from character `offset` on (the rest of a 4-character group dropped). */
function decodeRun(run: string, offset: number): Uint8Array {
  const chars = run.slice(offset).replaceAll('-', '+').replaceAll('_', '/');
  const whole = chars.slice(0, chars.length - (chars.length % 4));
  try {
    return Uint8Array.from(atob(whole), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array(0);
  }
}

function includesBytes(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * The forms of `secret` that `text` holds: as written, percent-encoded, hex (either case, also
 * one `%XX` per byte), and base64/base64url inside any run of base64 characters, at every
 * alignment. `[]` when none.
 */
export function secretFormsIn(text: string, secret: string): string[] {
  const found: string[] = [];
  if (text.includes(secret)) found.push('as written');
  const percent = encodeURIComponent(secret);
  if (percent !== secret && text.toLowerCase().includes(percent.toLowerCase())) found.push('percent-encoded');
  const bytes = new TextEncoder().encode(secret);
  const hex = Buffer.from(bytes).toString('hex');
  const lower = text.toLowerCase();
  if (lower.includes(hex)) found.push('hex');
  if (lower.replaceAll('%', '').includes(hex)) found.push('percent-encoded bytes');
  for (const [run] of text.matchAll(BASE64_RUN))
    for (let offset = 0; offset < 4; offset++)
      if (includesBytes(decodeRun(run, offset), bytes)) {
        found.push(`base64 at offset ${offset}`);
        break;
      }
  return found;
}
