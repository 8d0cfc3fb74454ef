/**
 * The browser twin of plain-json.ts: a page copies every answer (`toPlainData`), as before.
 * Why: the check is 0.1 KB gzip of a page's client, for 14 µs of a call whose time a page's
 * network decides.
 */
export function parsesAsPlainData(_text: string): boolean {
  return false;
}
