import { open } from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ValidationError, fileFromPath, type OmniMedia } from 'omnimedia';
import { SNIFF_BYTES, sniffMediaType } from '../schemas/sniff.ts';
import { epochMs } from '../schemas/time.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE } from '../uploads/inputs.ts';
import { TooLarge, downloadAtMost } from './capped-download.ts';
import { isHttpUrl, type LocalFiles } from './local-files.ts';
import type { Scrub } from './redaction.ts';

const CONTEXT = 'upload_file';
/** The largest file the service takes (a video): a URL's file is read up to this, then its kind's own limit applies. */
const MAX_UPLOAD_BYTES = Math.max(IMAGE_UPLOAD_RULE.maxBytes, VIDEO_UPLOAD_RULE.maxBytes);

/** The first bytes of a file on disk, for sniffing. */
async function headOf(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const head = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Which endpoint takes a file of these first bytes; a `ValidationError` naming `field` when none does. */
function kindOf(head: Uint8Array, field: string): 'image' | 'video' {
  const found = sniffMediaType(head);
  if (found && IMAGE_UPLOAD_RULE.accept.includes(found.label)) return 'image';
  if (found && VIDEO_UPLOAD_RULE.accept.includes(found.label)) return 'video';
  const takes = `${IMAGE_UPLOAD_RULE.accept.join(', ')} images or ${VIDEO_UPLOAD_RULE.accept.join(', ')} videos`;
  throw new ValidationError([{ path: field, message: `${found ? `is a ${found.label} file` : 'is of no known type'}; the service takes ${takes}` }], CONTEXT);
}

/**
 * `upload_file`: `{ path }` (a file inside the allowed directories) or `{ url }` (downloaded by
 * the client's downloader), the kind sniffed from the first bytes, uploaded by the client's own
 * `uploads.image`/`uploads.video` (its size and type checks, retries, cache).
 */
export async function uploadFile(args: Record<string, unknown>, client: OmniMedia, files: LocalFiles, scrub: Scrub, signal: AbortSignal): Promise<CallToolResult> {
  const { path, url } = args;
  if ((path === undefined) === (url === undefined))
    throw new ValidationError([{ path: path === undefined ? 'path' : 'url', message: 'give either path (a local file) or url, one of them' }], CONTEXT);
  let record;
  if (path !== undefined) {
    if (typeof path !== 'string' || path === '') throw new ValidationError([{ path: 'path', message: 'must be a file path' }], CONTEXT);
    const real = await files.resolve(path, 'path');
    const file = fileFromPath(real);
    record = kindOf(await headOf(real), 'path') === 'image' ? await client.uploads.image(file, { signal }) : await client.uploads.video(file, { signal });
  } else {
    if (typeof url !== 'string' || !isHttpUrl(url) || !URL.canParse(url)) throw new ValidationError([{ path: 'url', message: 'must be an http(s) URL' }], CONTEXT);
    // Never more in memory than the service takes of any file: refused from the Content-Length, or as it streams past.
    const bytes = await downloadAtMost(client, url, MAX_UPLOAD_BYTES, signal).catch((error: unknown) => {
      throw error instanceof TooLarge ? error.toValidationError('url', CONTEXT) : error;
    });
    const blob = new Blob([bytes as Uint8Array<ArrayBuffer>]);
    const head = bytes.subarray(0, SNIFF_BYTES);
    const filename = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || undefined;
    const options = { signal, ...(filename ? { filename } : {}) };
    record = kindOf(head, 'url') === 'image' ? await client.uploads.image(blob, options) : await client.uploads.video(blob, options);
  }
  const use = 'upload_id' in record ? `upload_id ${record.upload_id} (for edit_video's input_video)` : `url ${record.url} (for edit_image and generate_video)`;
  const until = epochMs(record.expires_at);
  const line = `Uploaded ${record.filename ?? 'the file'}: ${use}, valid ${until === undefined ? '24 hours' : `until ${new Date(until).toISOString()}`}.`;
  return scrub({ content: [{ type: 'text', text: `${line}\n${JSON.stringify(record, null, 2)}` }], structuredContent: record as unknown as Record<string, unknown> });
}
