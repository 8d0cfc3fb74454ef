// An abort while an upload's body is being built (the file opened, the multipart framing not
// yet made) must not leave the file open: the body that arrives after the abort is released.
import { copyFile, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OmniMedia } from '../../src/index.ts';
import { fixture, tempDir } from '../helpers/fixtures.ts';

const dir = await tempDir();

/** How many descriptors of this process point at `path` (Linux). */
async function openHandles(path: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')) === path) count++;
  return count;
}

describe.skipIf(process.platform !== 'linux')('an abort while the upload body is built', () => {
  it('closes the file the body had opened', async () => {
    const path = join(dir, 'photo.png');
    await copyFile(fixture('tiny.png').path, path);
    const client = new OmniMedia({ apiKey: 'sk-abort-0123456789abcdef', baseURL: 'https://api.test', fetch: async () => Response.json({ url: 'https://u/1.png' }) });
    const controller = new AbortController();
    // The first progress report comes from inside the body's construction, after the file was opened.
    const upload = client.uploads.image(path, { signal: controller.signal, onProgress: ({ loaded }) => loaded === 0 && controller.abort() });
    await expect(upload).rejects.toMatchObject({ name: "AbortError" });
    await expect.poll(() => openHandles(path), { timeout: 2_000 }).toBe(0);
  });
});
