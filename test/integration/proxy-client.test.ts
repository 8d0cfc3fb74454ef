// The page's side: `new OmniMedia({ proxyURL })` with no key, every call it knows, through a
// real proxy in front of the mock service that accepts only the proxy's key.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, OmniMedia, ValidationError, type TaskResult } from 'omnimedia';
import { TasksClient } from 'omnimedia/tasks';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { KEY, SESSION, startProxy, type RunningProxy } from '../proxy/helpers.ts';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));
const WAIT = { initialDelay: 0, interval: 50, maxInterval: 100, timeout: 20_000 };

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

describe('new OmniMedia({ proxyURL })', () => {
  it('resolves a relative proxyURL against the page, needs no opt-in and no key', () => {
    vi.stubGlobal('window', globalThis);
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { href: 'https://app.example.com/studio/new?draft=1' });
    vi.stubEnv('OMNIMEDIA_API_KEY', 'sk-from-a-bundler-polyfill');
    const client = new OmniMedia({ proxyURL: '/api/omnimedia' });
    expect(client.baseURL).toBe('https://app.example.com/api/omnimedia/');
    expect(client.hasApiKey).toBe(false);
    expect(new OmniMedia({ proxyURL: 'https://api.example.com/omni/' }).baseURL).toBe('https://api.example.com/omni/');
  });

  it.each([
    ['apiKey', { apiKey: 'sk-1' }],
    ['baseURL', { baseURL: 'https://service.example.com' }],
  ])('with %s is a ValidationError at construction, naming it', (name, extra) => {
    try {
      new OmniMedia({ proxyURL: 'https://app.example.com/api/omnimedia', ...extra });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues).toEqual([{ path: name, message: 'not with proxyURL: the proxy on your server holds it' }]);
    }
  });

  // Next.js renders a 'use client' page on the server while it builds: a client made at the
  // page module's top failed `next build` with this ValidationError (issue 29).
  it('a relative proxyURL where there is no page yet (server rendering) is valid, and resolves at the first request', async () => {
    const seen: string[] = [];
    const fetch = async (input: Request | string | URL) => (seen.push(String(input)), Response.json({ task_id: 'task_1', status: 'pending' }));
    const rendered = new OmniMedia({ proxyURL: '/api/omnimedia', fetch });
    const tasks = new TasksClient({ proxyURL: '/api/omnimedia', fetch });
    expect(rendered.baseURL).toBe('/api/omnimedia/');
    // A request with still no page: a ValidationError naming proxyURL, nothing sent.
    await expect(rendered.images.generate({ model: 'omni-image', prompt: 'a fox' })).rejects.toThrow(
      expect.objectContaining({ name: 'ValidationError', issues: [expect.objectContaining({ path: 'proxyURL', message: expect.stringMatching(/is relative, and there is no page/) })] }),
    );
    await expect(tasks.retrieve('task_1')).rejects.toBeInstanceOf(ValidationError);
    expect(seen).toEqual([]);
    // In the browser the same module's client has a page by its first request.
    vi.stubGlobal('location', { href: 'https://app.example.com/studio/new?draft=1' });
    await rendered.images.generate({ model: 'omni-image', prompt: 'a fox' });
    await tasks.retrieve('task_1');
    expect(seen).toEqual(['https://app.example.com/api/omnimedia/v1/images/generations', 'https://app.example.com/api/omnimedia/v1/tasks/task_1']);
  });

  // Chromium records a no-store answer (as the proxy's are) read with a stream reader as
  // cancelled, net::ERR_ABORTED, now and then, though all of it arrived (the Next.js run in
  // test/package/nextjs: 1 to 4 of 5 calls a page). Behind the proxy, answers are read whole.
  it('reads the proxy\u2019s answers whole, never with a stream reader, and still caps them at 1 MiB', async () => {
    // Readers the client took itself (arrayBuffer takes one inside undici, synchronously: not counted).
    let readers = 0;
    let whole = false;
    const answer = (text: string, status = 200) => {
      const response = new Response(text, { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
      const body = response.body as ReadableStream<Uint8Array>;
      const getReader = body.getReader.bind(body);
      Object.defineProperty(body, 'getReader', { value: (...args: []) => (whole || readers++, getReader(...args)) });
      const arrayBuffer = response.arrayBuffer.bind(response);
      Object.defineProperty(response, 'arrayBuffer', {
        value: () => {
          whole = true;
          try {
            return arrayBuffer();
          } finally {
            whole = false;
          }
        },
      });
      return response;
    };
    let next = () => answer(JSON.stringify({ task_id: 'task_1', status: 'pending' }));
    const client = new OmniMedia({ proxyURL: 'https://app.example.com/api/omnimedia', maxRetries: 0, fetch: async () => next() });
    expect((await client.images.generate({ model: 'omni-image', prompt: 'a fox' })).task_id).toBe('task_1');
    next = () => answer(JSON.stringify({ error: { code: 'not_found', message: 'no such task' } }), 404);
    await expect(client.tasks.retrieve('task_2')).rejects.toThrow(/no such task/);
    next = () => answer(`{"task_id":"task_1","status":"pending","pad":"${'x'.repeat(1024 * 1024)}"}`);
    await expect(client.tasks.retrieve('task_1')).rejects.toThrow(/larger than 1 MiB/);
    expect(readers).toBe(0);
    // Against the service itself the stream reader and its cap stay (a server may stream without end).
    const direct = new OmniMedia({ baseURL: 'https://media.example.com', maxRetries: 0, fetch: async () => answer(JSON.stringify({ task_id: 'task_1', status: 'pending' })) });
    await direct.tasks.retrieve('task_1');
    expect(readers).toBe(1);
  });

  it('a proxyURL that is not http(s) is a ValidationError naming it, page or not', () => {
    expect(() => new OmniMedia({ proxyURL: 'ftp://x/y' })).toThrow(/proxyURL: must be an http\(s\) URL, absolute or relative to the page/);
    vi.stubGlobal('location', { href: 'https://app.example.com/' });
    expect(() => new OmniMedia({ proxyURL: 'javascript:alert(1)' })).toThrow(/proxyURL: must be an http\(s\) URL/);
  });

  it('sends no key (not even the environment\u2019s), the page\u2019s cookies (credentials same-origin), and nothing fails locally for want of a key', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', 'sk-environment');
    const seen: { url: string; init: RequestInit | undefined }[] = [];
    const client = new OmniMedia({
      proxyURL: 'https://app.example.com/api/omnimedia',
      fetch: async (input, init) => {
        seen.push({ url: String(input), init });
        return Response.json({ task_id: 'task_1', status: 'pending' });
      },
    });
    await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    await client.tasks.retrieve('task_1');
    expect(seen.map((s) => s.url)).toEqual(['https://app.example.com/api/omnimedia/v1/images/generations', 'https://app.example.com/api/omnimedia/v1/tasks/task_1']);
    for (const { init } of seen) {
      expect(init?.credentials).toBe('same-origin');
      expect(JSON.stringify(init?.headers)).not.toMatch(/authorization|sk-environment/i);
    }
  });
});

describe('a page\u2019s client through the proxy, in front of the mock service', () => {
  let mock: MockServer;
  let proxy: RunningProxy;
  let client: OmniMedia;

  beforeAll(async () => {
    mock = await startMockServer({ apiKeys: [KEY], durations: { pending: 50, image: 150, imageEdit: 150, video: 250, videoEdit: 250 } });
    proxy = await startProxy({ upstream: mock.url });
    // Node's fetch sends a cookie header as given; in a page the browser sends the session cookie.
    client = new OmniMedia({ proxyURL: `${proxy.url}/api/omnimedia`, defaultHeaders: { cookie: SESSION } });
  });
  afterAll(async () => {
    await proxy.close();
    await mock.close();
  });

  it('images.generate(...).wait()', async () => {
    const task = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse', size: '1536x1024' }).wait(WAIT);
    expect(task).toMatchObject({ status: 'completed', operation: 'image_generation' });
  });

  it('images.edit with a File and a mask, both auto-uploaded', async () => {
    const file = new File([fixture('tiny.png')], 'photo.png', { type: 'image/png' });
    const mask = new Blob([fixture('tiny.webp')]);
    const task = await client.images.edit({ model: 'omni-image', prompt: 'make it night', image: [file], mask }).wait(WAIT);
    expect(task.status).toBe('completed');
    expect(mock.mock.uploads()).toHaveLength(2);
  });

  it('videos.generate({ images: [file] }).wait() and videos.edit with a video File', async () => {
    const image = new File([fixture('tiny.jpg')], 'cat.jpg');
    const generated = await client.videos.generate({ prompt: 'the cat jumps', images: [image], seconds: 4 }).wait(WAIT);
    expect(generated).toMatchObject({ status: 'completed', normalized_model: 'omni_flash_components_720p_4s' });
    const clip = new File([fixture('tiny.mp4')], 'clip.mp4');
    const edited = await client.videos.edit({ prompt: 'make it snow', input_video: clip }).wait(WAIT);
    expect(edited.status).toBe('completed');
  });

  it('uploads.image and uploads.video with progress', async () => {
    const progress: number[] = [];
    const image = await client.uploads.image(new Blob([fixture('tiny.png')]), { filename: 'a.png', onProgress: ({ loaded }) => progress.push(loaded) });
    expect(image.url).toMatch(/^http/);
    expect(progress.at(-1)).toBe(fixture('tiny.png').byteLength);
    const video = await client.uploads.video(fixture('tiny.webm'), { filename: 'v.webm' });
    expect(video.upload_id).toBeTruthy();
  });

  it('tasks.retrieve, tasks.wait and tasks.watch by id', async () => {
    const { task_id } = await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    expect((await client.tasks.retrieve(task_id)).task_id).toBe(task_id);
    const seen: TaskResult[] = [];
    for await (const task of client.tasks.watch(task_id, WAIT)) seen.push(task);
    expect(seen.at(-1)?.status).toBe('completed');
    expect((await client.tasks.wait(task_id, WAIT)).status).toBe('completed');
  });

  it('a page that only follows tasks: TasksClient({ proxyURL }) retrieves and waits through the proxy', async () => {
    const { task_id } = await client.images.generate({ model: 'omni-image', prompt: 'a heron' });
    const tasks = new TasksClient({ proxyURL: `${proxy.url}/api/omnimedia`, defaultHeaders: { cookie: SESSION } });
    const before = mock.mock.requests.length;
    expect((await tasks.retrieve(task_id)).task_id).toBe(task_id);
    expect((await tasks.wait(task_id, WAIT)).status).toBe('completed');
    // Every query reached the service through the proxy, which asked for the session.
    expect(mock.mock.requests.slice(before).every((r) => r.path === `/v1/tasks/${task_id}`)).toBe(true);
    const anonymous = new TasksClient({ proxyURL: `${proxy.url}/api/omnimedia` });
    await expect(anonymous.retrieve(task_id)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('local validation still throws before anything is sent', async () => {
    const before = mock.mock.requests.length;
    await expect(client.images.generate({ model: 'omni-image', prompt: 'p', size: '1000x1000' as never })).rejects.toBeInstanceOf(ValidationError);
    await expect(client.uploads.image(fixture('tiny.gif'))).rejects.toThrow(/found GIF/);
    expect(mock.mock.requests.length).toBe(before);
  });

  it('the service saw the proxy\u2019s key on every submission and upload (it accepts no other)', async () => {
    const anonymous = new OmniMedia({ proxyURL: `${proxy.url}/api/omnimedia` });
    await expect(anonymous.images.generate({ model: 'omni-image', prompt: 'a fox' })).rejects.toBeInstanceOf(AuthenticationError);
    expect(mock.mock.requests.filter((r) => r.status === 401)).toEqual([]);
  });
});
