// The tools over Streamable HTTP against the mock, in fake time: the listed schemas against the
// SDK's own request fixtures, results (embedded, linked, saved), local files only inside
// allowedDirs, upload_file.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TaskResult } from 'omnimedia';
import { runInFakeTime } from '../helpers/clock.ts';
import { CASES } from '../schemas/request-cases.ts';
import { LONG, call, startHarness, submissions, textOf, type Harness } from './helpers.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];
const FAST = { pending: 200, image: 1_000, imageEdit: 1_000, video: 2_000, videoEdit: 2_000 };
let harness: Harness;
let dir: string;
let outside: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-mcp-allowed-'));
  outside = await mkdtemp(join(tmpdir(), 'omnimedia-mcp-outside-'));
  await writeFile(join(dir, 'photo.png'), await readFile(join(FIXTURES, 'tiny.png')));
  await writeFile(join(dir, 'clip.mp4'), await readFile(join(FIXTURES, 'tiny.mp4')));
  await writeFile(join(outside, 'secret.png'), await readFile(join(FIXTURES, 'tiny.png')));
  await mkdir(join(dir, 'sub'));
  await symlink(join(outside, 'secret.png'), join(dir, 'sub', 'link.png'));
  await symlink(outside, join(dir, 'out'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});
beforeEach(() => {
  vi.useFakeTimers({ now: 1_800_000_000_000, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(async () => {
  await harness?.close();
  vi.useRealTimers();
});

// A generous budget of fake time: on a loaded machine a step of real work (a file read, a PNG
// made) may take longer than many steps of fake time; nothing here is timed by it.
const run = <T>(promise: Promise<T>) => runInFakeTime(promise, { ms: 1_800_000, step: 250 });

describe('tools/list', () => {
  it('six tools: the submissions as optional MCP tasks, annotated; get_task read-only; schemas that state the limits', async () => {
    harness = await startHarness({ server: { allowedDirs: [dir] } });
    const mcp = await harness.connect();
    const { tools } = await run(mcp.listTools(undefined, LONG));
    expect(tools.map((t) => t.name)).toEqual(['generate_image', 'edit_image', 'generate_video', 'edit_video', 'upload_file', 'get_task']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['generate_image', 'edit_image', 'generate_video', 'edit_video']) {
      expect(byName[name]?.execution).toEqual({ taskSupport: 'optional' });
      expect(byName[name]?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
    }
    expect(byName.get_task?.annotations).toMatchObject({ readOnlyHint: true });
    const image = byName.generate_image?.inputSchema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(image.required).toEqual(['model', 'prompt']);
    expect(image.properties.n).toMatchObject({ type: 'integer', minimum: 1, maximum: 4 });
    expect(image.properties.prompt).toMatchObject({ maxLength: 4000 });
    expect(image.properties.size?.description).toContain('multiples of 16');
    const video = byName.generate_video?.inputSchema as { properties: Record<string, Record<string, unknown>> };
    expect(video.properties.images).toMatchObject({ maxItems: 3 });
    expect(video.properties.seconds).toMatchObject({ enum: [4, 6, 8, 10, '4', '6', '8', '10'] });
    expect(byName.edit_image?.description).toContain(dir);
    expect(byName.edit_image?.description).toContain('at most 25 MiB');
  });

  // The fixtures are wire bodies; the tools take the SDK's params, which are the same for images
  // and for videos given as messages. Their references (u, v, w, x) become real uploads.
  const TOOL_OF = { 'image generation': 'generate_image', 'image edit': 'edit_image', 'video generation': 'generate_video', 'video edit': 'edit_video' } as const;
  const BEYOND_JSON_SCHEMA = [/^both sides must be multiples of 16/, /^may reference at most \d+ images/, /^must be an absolute http\(s\) URL$/];
  const objectCases = CASES.map((c, i) => [i, ...c] as const).filter(
    ([, body, input]) => body in TOOL_OF && typeof input === 'object' && input !== null && !Array.isArray(input),
  );

  it("the listed schemas accept every valid fixture and refuse the invalid image ones (but for the rules JSON Schema cannot state)", async () => {
    harness = await startHarness();
    const mcp = await harness.connect();
    const { tools } = await run(mcp.listTools(undefined, LONG));
    const validator = new AjvJsonSchemaValidator();
    for (const [i, body, input, issues] of objectCases) {
      const tool = tools.find((t) => t.name === TOOL_OF[body as keyof typeof TOOL_OF])!;
      const { valid } = validator.getValidator(tool.inputSchema as JsonSchemaType)(input);
      const beyond = issues.every(([, message]) => BEYOND_JSON_SCHEMA.some((pattern) => pattern.test(message)));
      if (issues.length === 0 || beyond) expect(valid, `case ${i}`).toBe(true);
      else if (body.startsWith('image')) expect(valid, `case ${i}`).toBe(false);
    }
  });

  it('every valid fixture is sent; every invalid one is a tool error naming the same fields and rules, with nothing sent', async () => {
    harness = await startHarness({ mock: { durations: FAST } });
    const mcp = await harness.connect();
    const image = await run(harness.client.uploads.image(join(FIXTURES, 'tiny.png')));
    const video = await run(harness.client.uploads.video(join(FIXTURES, 'tiny.mp4')));
    const REFERENCES = ['image', 'mask', 'url', 'upload_id'];
    const real = (value: unknown, key?: string): unknown => {
      if (typeof value === 'string' && ['u', 'v', 'w', 'x'].includes(value) && REFERENCES.includes(key ?? ''))
        return key === 'upload_id' ? video.upload_id : image.url;
      if (Array.isArray(value)) return value.map((item) => real(item, key));
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, real(v, k)]));
      return value;
    };
    for (const [i, body, input, issues] of objectCases) {
      harness.mock.clearRequests();
      const result = await run(call(mcp, TOOL_OF[body as keyof typeof TOOL_OF], real(input) as Record<string, unknown>, { timeout: 600_000 }));
      if (issues.length === 0) {
        expect(submissions(harness.mock), `case ${i}: sent`).toBe(1);
        continue;
      }
      // A video edit's input_video may be the upload_id string itself (the SDK's params): sent.
      if (body === 'video edit' && typeof (input as { input_video?: unknown }).input_video === 'string') continue;
      expect(result.isError, `case ${i}`).toBe(true);
      expect(textOf(result)).toMatch(/^ValidationError: /);
      expect(textOf(result)).toContain('Nothing was sent.');
      expect(submissions(harness.mock), `case ${i}: nothing sent`).toBe(0);
      // The prompt form (no messages) of a video reports its own fields; the rest as the fixture says.
      if (body.startsWith('image') || (body === 'video generation' && 'messages' in (input as object))) {
        const named = (result.structuredContent as { error: { issues: { path: string; message: string }[] } }).error.issues;
        expect(named, `case ${i}`).toEqual(issues.map(([path, message]) => ({ path, message })));
      }
    }
  }, 60_000);
});

describe('results', () => {
  it('an image result embedded and linked, and saved under downloadDir as file:// links', async () => {
    const downloadDir = await mkdtemp(join(tmpdir(), 'omnimedia-mcp-downloads-'));
    harness = await startHarness({ mock: { durations: FAST }, server: { downloadDir } });
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'generate_image', { model: 'omni-image', prompt: 'a lighthouse', size: '1024x1024', n: 2 }));
    const task = result.structuredContent as unknown as TaskResult;
    expect(task).toMatchObject({ status: 'completed', data: [{ url: expect.any(String) }, { url: expect.any(String) }] });
    const links = result.content.filter((c) => c.type === 'resource_link');
    expect(links.slice(0, 2)).toEqual([
      { type: 'resource_link', uri: task.data![0]!.url, name: `${task.task_id}-0.png`, mimeType: 'image/png' },
      { type: 'resource_link', uri: task.data![1]!.url, name: `${task.task_id}-1.png`, mimeType: 'image/png' },
    ]);
    const saved = links.slice(2);
    expect(saved).toHaveLength(2);
    for (const [i, link] of saved.entries()) {
      expect(link).toMatchObject({ uri: pathToFileURL(join(downloadDir, `${task.task_id}-${i}.png`)).href, mimeType: 'image/png' });
      expect([...(await readFile(fileURLToPath((link as { uri: string }).uri))).subarray(0, 4)]).toEqual(PNG_SIGNATURE);
    }
    const images = result.content.filter((c) => c.type === 'image') as { data: string; mimeType: string }[];
    expect(images).toHaveLength(2);
    expect(images[0]!.mimeType).toBe('image/png');
    expect([...Buffer.from(images[0]!.data, 'base64').subarray(0, 4)]).toEqual(PNG_SIGNATURE);
    await rm(downloadDir, { recursive: true, force: true });
  });

  it('downloadDir: a task rendered again (get_task after the call) answers with the files saved for it, not downloaded again', async () => {
    const downloadDir = await mkdtemp(join(tmpdir(), 'omnimedia-mcp-downloads-'));
    harness = await startHarness({ mock: { durations: FAST }, server: { downloadDir, embedImages: false } });
    const mcp = await harness.connect();
    const first = await run(call(mcp, 'generate_image', { model: 'omni-image', prompt: 'a lighthouse', n: 2 }));
    const task = first.structuredContent as unknown as TaskResult;
    const fileLinks = (result: typeof first) => result.content.filter((c) => c.type === 'resource_link' && c.uri.startsWith('file:')).map((c) => (c as { uri: string }).uri);
    expect(fileLinks(first)).toHaveLength(2);
    harness.mock.clearRequests();
    const again = await run(call(mcp, 'get_task', { task_id: task.task_id }));
    expect(textOf(again)).not.toContain('could not be saved');
    expect(fileLinks(again)).toEqual(fileLinks(first));
    expect(harness.mock.requests.filter((r) => r.method === 'GET' && !r.path.startsWith('/v1/tasks/'))).toEqual([]);
    await rm(downloadDir, { recursive: true, force: true });
  });

  it('embedImages: false links only', async () => {
    harness = await startHarness({ mock: { durations: FAST }, server: { embedImages: false } });
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'generate_image', { model: 'omni-image', prompt: 'a lighthouse' }));
    expect(result.content.map((c) => c.type)).toEqual(['text', 'resource_link']);
  });

  it('a video result is linked as video/mp4, never embedded', async () => {
    harness = await startHarness({ mock: { durations: FAST } });
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'generate_video', { prompt: 'a paper boat', seconds: 4 }));
    expect(result.content.slice(1)).toEqual([expect.objectContaining({ type: 'resource_link', mimeType: 'video/mp4' })]);
  });
});

describe('callback URLs', () => {
  it("an agent's callback_url never carries the app's token: refused (a tool error naming it, nothing sent) when the client signs callbacks", async () => {
    harness = await startHarness({ mock: { durations: FAST }, client: { callbackSecret: 'whsec-app-secret-0123456789abcdef' } });
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'generate_image', { model: 'omni-image', prompt: 'a fox', callback_url: 'https://agent-chosen.example/hook' }));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^ValidationError: /);
    expect(textOf(result)).toContain('callback_url: ');
    expect(submissions(harness.mock)).toBe(0);
  });
});

describe('local files: only inside allowedDirs', () => {
  it('an edit of a local image inside allowedDirs: uploaded first, then edited', async () => {
    harness = await startHarness({ mock: { durations: FAST }, server: { allowedDirs: [dir], waitMs: 3_600_000 } });
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'edit_image', { model: 'omni-image', prompt: 'at night', image: join(dir, 'photo.png') }));
    expect(result.structuredContent).toMatchObject({ status: 'completed' });
    const posts = harness.mock.requests.filter((r) => r.method === 'POST').map((r) => r.path);
    expect(posts).toEqual(['/v1/uploads/images', '/v1/images/edits']);
    // A file:// URL and a relative path inside too; a video edit of a local clip.
    const viaUrl = await run(call(mcp, 'edit_image', { model: 'omni-image', prompt: 'x', image: [pathToFileURL(join(dir, 'photo.png')).href] }));
    expect(viaUrl.isError).toBeFalsy();
    const clip = await run(call(mcp, 'edit_video', { prompt: 'make it snow', input_video: join(dir, 'clip.mp4') }));
    expect(clip.structuredContent).toMatchObject({ status: 'completed', model: 'omni_flash_edit' });
  });

  it.each([
    ['a path outside', () => join(outside, 'secret.png'), 'is outside the allowed directories'],
    ['a .. escape', () => join(dir, '..', 'x', '..', outside.split('/').pop()!, 'secret.png'), 'is outside the allowed directories'],
    ['a symbolic link out', () => join(dir, 'sub', 'link.png'), 'leads outside the allowed directories'],
    ['a directory link out', () => join(dir, 'out', 'secret.png'), 'leads outside the allowed directories'],
    ['a file that is not there', () => join(dir, 'missing.png'), 'was not found in the allowed directories'],
    ['another root', () => '/etc/hostname', 'is outside the allowed directories'],
  ])('refused, nothing sent: %s', async (_what, path, message) => {
    harness = await startHarness({ server: { allowedDirs: [dir] } });
    const mcp = await harness.connect();
    for (const [tool, args] of [
      ['edit_image', { model: 'omni-image', prompt: 'x', image: path() }],
      ['generate_video', { prompt: 'x', images: [path()] }],
      ['upload_file', { path: path() }],
    ] as const) {
      const result = await run(call(mcp, tool, args));
      expect(result.isError, tool).toBe(true);
      expect(textOf(result)).toMatch(/^ValidationError: /);
      expect(textOf(result)).toContain(message);
      expect(textOf(result)).toContain(dir);
    }
    expect(harness.mock.requests).toEqual([]);
  });

  it('a server without allowedDirs reads no local file', async () => {
    harness = await startHarness();
    const mcp = await harness.connect();
    const result = await run(call(mcp, 'edit_image', { model: 'omni-image', prompt: 'x', image: join(dir, 'photo.png') }));
    expect(textOf(result)).toContain('this server reads no local files');
    expect(harness.mock.requests).toEqual([]);
  });
});

describe('upload_file', () => {
  it('a local image gives its url, a local video its upload_id, a URL is downloaded and uploaded; the kind from the bytes', async () => {
    harness = await startHarness({ mock: { durations: FAST }, server: { allowedDirs: [dir] } });
    const mcp = await harness.connect();
    const image = await run(call(mcp, 'upload_file', { path: join(dir, 'photo.png') }));
    expect(image.structuredContent).toMatchObject({ url: expect.any(String), content_type: 'image/png' });
    const video = await run(call(mcp, 'upload_file', { path: join(dir, 'clip.mp4') }));
    expect(video.structuredContent).toMatchObject({ upload_id: expect.any(String) });
    expect(textOf(video)).toContain("for edit_video's input_video");
    const made = await run(harness.client.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait());
    const fromUrl = await run(call(mcp, 'upload_file', { url: made.data![0]!.url }));
    expect(fromUrl.structuredContent).toMatchObject({ content_type: 'image/png' });
    // Then used by the other tools.
    const edit = await run(call(mcp, 'edit_image', { model: 'omni-image', prompt: 'x', image: (image.structuredContent as { url: string }).url }));
    expect(edit.isError).toBeFalsy();
  });

  it('a file of another kind, both or neither of path and url: tool errors, nothing sent', async () => {
    harness = await startHarness({ server: { allowedDirs: [dir, FIXTURES] } });
    const mcp = await harness.connect();
    expect(textOf(await run(call(mcp, 'upload_file', { path: join(FIXTURES, 'tiny.gif') })))).toContain('path: is a GIF file; the service takes PNG, JPEG, WebP images or MP4, MOV, WebM videos');
    expect(textOf(await run(call(mcp, 'upload_file', {})))).toContain('give either path (a local file) or url');
    expect(textOf(await run(call(mcp, 'upload_file', { path: 'a', url: 'https://x.test/a.png' })))).toContain('give either path');
    expect(harness.mock.requests).toEqual([]);
  });
});
