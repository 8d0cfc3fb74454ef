// Wrong set-ups a new user makes, each told before any request, by an OmniMediaError (a
// ValidationError: it is the caller's input) that says what happened and what to do.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OmniMedia, OmniMediaError, ValidationError } from '../../src/index.ts';
import { tempDir } from '../helpers/fixtures.ts';

const dir = await tempDir();
const sent: string[] = [];
const client = new OmniMedia({
  apiKey: 'sk-setups-0123456789',
  baseURL: 'https://api.test',
  fetch: async (input) => {
    sent.push(String(input));
    return Response.json({ task_id: 'task_1', status: 'pending' });
  },
});

/** The call's error, which must be a ValidationError; and nothing was sent. */
async function refused(call: () => Promise<unknown>): Promise<ValidationError> {
  sent.length = 0;
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OmniMediaError);
  expect(error).toBeInstanceOf(ValidationError);
  expect(sent).toEqual([]);
  return error as ValidationError;
}

describe('a path that is not a readable file', () => {
  it('a missing file says it was not found', async () => {
    const error = await refused(() => client.uploads.image(join(dir, 'nope.png')));
    expect(error.issues).toEqual([{ path: 'file', message: `"${join(dir, 'nope.png')}" was not found: check the path (relative paths start at ${process.cwd()})` }]);
  });

  it('a directory says it is one (was a raw DOMException NotReadableError)', async () => {
    await mkdir(join(dir, 'folder'));
    const error = await refused(() => client.uploads.image(join(dir, 'folder')));
    expect(error.issues[0]?.message).toBe(`"${join(dir, 'folder')}" is a directory: give the path of a file`);
  });

  it('the same through auto-upload: the field is named', async () => {
    const { fileFromPath } = await import('../../src/index.ts');
    const error = await refused(() => client.images.edit({ model: 'omni-image', prompt: 'p', image: fileFromPath(join(dir, 'folder')) }));
    expect(error.issues[0]).toMatchObject({ path: 'image', message: expect.stringContaining('is a directory') });
  });
});

describe('files.download into an existing directory', () => {
  it('is refused before the request, with what to do (was a network error after it)', async () => {
    await mkdir(join(dir, 'out'), { recursive: true });
    const error = await refused(() => client.files.download('https://files.test/r/1.png', { to: join(dir, 'out') }));
    expect(error.issues).toEqual([
      {
        path: 'to',
        message: `"${join(dir, 'out')}" is a directory: give a file path for one URL (or download the task, whose \`to\` is a directory)`,
      },
    ]);
  });
});

describe('videos.edit with a path where the upload id goes', () => {
  it('is refused locally with the fileFromPath hint, as images.edit is', async () => {
    for (const path of ['./clip.mp4', 'clips/clip.mov', 'C:\\clips\\clip.webm', 'clip.mp4']) {
      const error = await refused(() => client.videos.edit({ prompt: 'make it snow', input_video: path }));
      expect(error.issues).toEqual([
        {
          path: 'input_video',
          message: `must be a video upload id, not "${path}" (a string is never read as a path: pass fileFromPath(...) to upload a file)`,
        },
      ]);
    }
  });

  it('an upload id still goes through', async () => {
    sent.length = 0;
    await client.videos.edit({ prompt: 'make it snow', input_video: 'vid_123' });
    expect(sent).toEqual(['https://api.test/v1/video/edits']);
  });
});

describe('a wait against a base URL where nothing listens', () => {
  it('warns once the queries keep failing to connect, and times out with the last connection error as its cause', async () => {
    const { vi } = await import('vitest');
    const { APIConnectionError, WaitTimeoutError } = await import('../../src/index.ts');
    vi.useFakeTimers();
    try {
      const warnings: string[] = [];
      const refused = Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
      });
      const nowhere = new OmniMedia({
        baseURL: 'http://127.0.0.1:9',
        logger: { error() {}, info() {}, debug() {}, warn: (message: string) => void warnings.push(message) },
        fetch: async () => {
          throw refused;
        },
      });
      const outcome = nowhere.tasks.wait('task_1', { timeout: 60_000 }).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toBe(
        '[omnimedia] wait(task_1): 3 queries in a row could not connect (tasks.wait(task_1): could not reach http://127.0.0.1:9/ (ECONNREFUSED)): is baseURL right? The wait goes on until its deadline.',
      );
      await vi.advanceTimersByTimeAsync(60_000);
      const error = await outcome;
      expect(error).toBeInstanceOf(WaitTimeoutError);
      expect((error as Error).cause).toBeInstanceOf(APIConnectionError);
      expect(((error as Error).cause as Error).message).toMatch(/ECONNREFUSED/);
      expect(warnings).toHaveLength(1); // once per wait, not per query
    } finally {
      vi.useRealTimers();
    }
  });
});
