// The Cloudflare Workers recipe (examples/proxy-cloudflare/worker.ts) in workerd, through
// Miniflare: a page's client (`proxyURL`, no key) generates, uploads, edits and makes a video
// through it, in front of the mock service that accepts only the Worker's key; a 30 MiB upload
// is a 413 and the upstream request is aborted, never ended cleanly. From the packed tarball
// too: test/package/run.sh runs this file with OMNIMEDIA_WORKERD_FROM (see workerd.ts).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { mediaBytes } from '../helpers/media-bytes.ts';
import { KEY_FORMS, startRecorder } from './helpers.ts';
import { recipeWorker, startWorker, type RunningWorker } from './workerd.ts';

const KEY = `sk-workerd/${randomBytes(12).toString('hex')}`;
const SESSION = randomBytes(12).toString('hex');
const WAIT = { initialDelay: 0, interval: 50, maxInterval: 200, timeout: 20_000 };
const MiB = 1024 * 1024;

let script: string;
beforeAll(async () => {
  script = await recipeWorker();
}, 30_000);

describe('the Workers recipe in workerd, in front of the mock service', () => {
  let mock: MockServer;
  let worker: RunningWorker;
  let page: OmniMedia;
  /** Every answer the page got, searched for the key at the end. */
  const seen: string[] = [];
  beforeAll(async () => {
    mock = await startMockServer({ apiKeys: [KEY], durations: { pending: 50, image: 150, imageEdit: 150, video: 250, videoEdit: 250 } });
    worker = await startWorker(script, { OMNIMEDIA_API_KEY: KEY, OMNIMEDIA_BASE_URL: mock.url, DEMO_SESSION: SESSION });
    page = new OmniMedia({
      proxyURL: `${worker.url}/api/omnimedia`,
      defaultHeaders: { cookie: `session=${SESSION}` },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        seen.push(`${response.status} ${JSON.stringify([...response.headers])} ${await response.clone().text()}`);
        return response;
      },
    });
  }, 30_000);
  afterAll(async () => {
    await worker?.close();
    await mock?.close();
  });

  it('generates an image', async () => {
    const task = await page.images.generate({ model: 'omni-image', prompt: 'a lighthouse' }).wait(WAIT);
    expect(task.status).toBe('completed');
  });

  it('uploads a file, edits it, and makes a video from a File', async () => {
    const upload = await page.uploads.image(new File([mediaBytes('png', 200 * 1024)], 'photo.png', { type: 'image/png' }));
    expect(upload.url).toMatch(/^http/);
    const edit = await page.images.edit({ model: 'omni-image', prompt: 'at night', image: upload }).wait(WAIT);
    expect(edit.status).toBe('completed');
    const video = await page.videos.generate({ prompt: 'it moves', images: [new File([mediaBytes('png', 4096)], 'a.png', { type: 'image/png' })], seconds: 4 }).wait(WAIT);
    expect(video.status).toBe('completed');
    expect(mock.mock.requests.filter((r) => r.path === '/v1/uploads/images')).toHaveLength(2);
  });

  it('streams a task’s events (not buffered): a wait is one request, two pages of one task share the watch', async () => {
    // Images long enough to see a stream's events arrive apart.
    mock.mock.setDurations({ image: 3_000 });
    const { task_id } = await page.images.generate({ model: 'omni-image', prompt: 'followed' });
    mock.mock.setDurations({ image: 150 });
    const opened = Date.now();
    const arrivals: { status: string; at: number }[][] = [[], []];
    const { sseParser } = await import('../../src/transport/sse.ts');
    const follow = async (into: { status: string; at: number }[]) => {
      const response = await fetch(`${worker.url}/api/omnimedia/v1/tasks/${task_id}/events`, { headers: { cookie: `session=${SESSION}` } });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const feed = sseParser(({ event, data }) => event === 'task' && into.push({ status: (JSON.parse(data) as { status: string }).status, at: Date.now() - opened }));
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) feed(decoder.decode(chunk, { stream: true }));
    };
    const before = mock.mock.requests.length;
    await Promise.all(arrivals.map(follow));
    for (const heard of arrivals) {
      expect(heard.at(-1)?.status).toBe('completed');
      // Streamed: the first event long before the last (a buffered answer comes whole at the end).
      expect(heard.at(-1)!.at - heard[0]!.at).toBeGreaterThan(1_000);
    }
    const reads = mock.mock.requests.slice(before).filter((r) => r.path === `/v1/tasks/${task_id}`).length;
    expect(reads).toBeLessThanOrEqual(3);
    const sent: string[] = [];
    const following = new OmniMedia({ proxyURL: `${worker.url}/api/omnimedia`, defaultHeaders: { cookie: `session=${SESSION}` }, fetch: (input, init) => (sent.push(String(input)), fetch(input, init)) });
    const done = await following.images.generate({ model: 'omni-image', prompt: 'waited' }).wait();
    expect(done.status).toBe('completed');
    expect(sent.filter((url) => /\/v1\/tasks\//.test(url))).toEqual([`${worker.url}/api/omnimedia/v1/tasks/${done.task_id}/events`]);
  });

  it('the key reached no answer, and no log line', () => {
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.filter((text) => [KEY, ...KEY_FORMS].some((form) => text.includes(form)))).toEqual([]);
    expect(worker.logs.filter((line) => line.includes(KEY))).toEqual([]);
  });
});

/** fetch's failure when the server closed the connection while the request body was being written. */
function cutMidBody(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return error instanceof TypeError && (code === 'EPIPE' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET');
}

describe('a 30 MiB upload through the Worker', () => {
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  let worker: RunningWorker;
  beforeAll(async () => {
    upstream = await startRecorder((_request, res) => void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"the multipart body could not be read"}}'));
    worker = await startWorker(script, { OMNIMEDIA_API_KEY: KEY, OMNIMEDIA_BASE_URL: upstream.url, DEMO_SESSION: SESSION });
  }, 30_000);
  afterAll(async () => {
    await worker?.close();
    await upstream?.close();
  });

  const form = (size: number) =>
    Buffer.concat([Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n'), mediaBytes('png', size), Buffer.from('\r\n--b--\r\n')]);
  const headers = { cookie: `session=${SESSION}`, 'content-type': 'multipart/form-data; boundary=b' };

  it.each([
    ['streamed, no Content-Length', true],
    ['with its Content-Length', false],
  ])('%s: refused with a 413 (or, declared, the connection closed mid-body), and the upstream request aborted, never completed', async (_name, streamed) => {
    upstream.requests.length = 0;
    const bytes = form(30 * MiB);
    const body = streamed
      ? new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 256 * 1024) controller.enqueue(bytes.subarray(at, at + 256 * 1024));
            controller.close();
          },
        })
      : bytes;
    const sent = fetch(`${worker.url}/api/omnimedia/v1/uploads/images`, { method: 'POST', headers, body, ...(streamed ? { duplex: 'half' } : {}) } as RequestInit);
    // Refused from its Content-Length, the Worker answers while the client still writes, and
    // workerd closes the connection on the unread rest: the client reads the 413 when it reads
    // before its next write fails (idle, always), or its write fails first (EPIPE, ECONNRESET:
    // one run in three beside three CPU burners). Either way the body was refused unread.
    const answer = streamed ? await sent : await sent.catch((error: unknown) => (cutMidBody(error) ? undefined : Promise.reject(error)));
    if (answer) {
      expect(answer.status, await answer.clone().text()).toBe(413);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('too_large');
    }
    if (streamed) {
      // Streamed: the upstream request was opened, then cut off.
      await expect.poll(() => upstream.requests.length > 0 && upstream.requests.every((r) => r.closed), { timeout: 30_000 }).toBe(true);
      expect(upstream.requests.filter((r) => r.complete)).toEqual([]);
    } else {
      // Declared too large: refused before anything was sent upstream.
      expect(upstream.requests).toEqual([]);
    }
    expect(worker.logs.join('\n')).not.toMatch(/#<|\[object /);
  });
});
