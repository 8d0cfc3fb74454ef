// The studio's page in Chromium (Debian's, driven by playwright-core), on the page built by the
// package's build script and the studio with the mock in its process (`--mock`): an image made
// through the form with its real pixels, the rules' messages with nothing sent, a video followed
// live on the events route (no task query from the page), and a restart with a task running.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia, type ValidationError } from 'omnimedia';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { startStudio, type RunningStudio } from '../../src/studio/server.ts';
import { builtPage, tempDir } from './helpers.ts';

let browser: Browser;
let studio: RunningStudio;
let removeDir: () => Promise<void>;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  const [assetsDir, temp] = await Promise.all([builtPage(), tempDir()]);
  removeDir = temp.remove;
  // The mock's own clock is real time: a pending phase long enough to see it, short runs.
  studio = await startStudio({ dir: temp.dir, mock: { durations: { pending: 400, image: 600, video: 2_500 } }, assetsDir, warn: () => {} });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await studio?.close();
  for (const cleanup of cleanups) await cleanup();
  await removeDir?.();
});

/** A page on `target` (its URL with the token), recording the page's requests. */
async function open(target: RunningStudio, viewport = { width: 1280, height: 800 }): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(target.url);
  await page.getByRole('heading', { name: 'Gallery' }).waitFor();
  return { page, requests, errors };
}

/** The bytes of a task's outputs, as the mock serves them. */
async function mockOutputs(mock: MockServer, taskId: string): Promise<Buffer[]> {
  const task = (await (await fetch(`${mock.url}/v1/tasks/${taskId}`, { headers: { authorization: 'Bearer sk-test' } })).json()) as { data: { url: string }[] };
  return Promise.all(task.data.map(async ({ url }) => Buffer.from(await (await fetch(url)).arrayBuffer())));
}

const card = (page: Page, taskId: string) => page.locator(`article[data-task="${taskId}"]`);

/** Click Generate; the task id of the card it adds (the gallery may hold earlier ones). */
async function generate(page: Page): Promise<string> {
  const known = await page.locator('article[data-task]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-task')));
  await page.getByRole('button', { name: 'Generate' }).click();
  const added = await page.waitForFunction(
    (before) => [...document.querySelectorAll('article[data-task^="task_"]')].map((c) => c.getAttribute('data-task')).find((id) => !before.includes(id)),
    known,
    { timeout: 30_000 },
  );
  return (await added.jsonValue()) as string;
}

describe('the studio page', () => {
  it('generates images through the form: the gallery shows their real pixels (natural size, bytes as the mock made them), followed on the events route, and downloads them', async () => {
    const mock = studio.mock as MockServer;
    mock.mock.clearRequests();
    const { page, requests, errors } = await open(studio);
    await page.getByLabel('Prompt').fill('a lighthouse at dawn');
    await page.getByLabel('Size').fill('1536x1024');
    await page.getByLabel('Number of images (n)').fill('2');
    await page.getByLabel('Quality').selectOption('high');
    const taskId = await generate(page);
    await card(page, taskId).locator('[data-status="completed"], .status:text("completed")').first().waitFor({ timeout: 30_000 });
    await page.waitForFunction((id) => {
      const images = [...document.querySelectorAll<HTMLImageElement>(`article[data-task="${id}"] img`)];
      return images.length === 2 && images.every((image) => image.complete && image.naturalWidth > 0);
    }, taskId);
    const shown = await card(page, taskId).locator('img').evaluateAll(async (images) =>
      Promise.all(
        (images as HTMLImageElement[]).map(async (image) => ({
          size: `${image.naturalWidth}x${image.naturalHeight}`,
          bytes: Array.from(new Uint8Array(await (await fetch(image.src)).arrayBuffer())),
        })),
      ),
    );
    const made = await mockOutputs(mock, taskId);
    expect(shown.map((image) => image.size)).toEqual(['1536x1024', '1536x1024']);
    expect(shown.map((image) => Buffer.from(image.bytes).equals(made[shown.indexOf(image)]!))).toEqual([true, true]);
    expect(await card(page, taskId).locator('.cost').textContent()).toMatch(/^\d/);
    // Progress came from the events route: no task query from the page, one submission upstream.
    expect(requests.filter((r) => r.startsWith(`GET /api/omnimedia/v1/tasks/${taskId}`))).toEqual([`GET /api/omnimedia/v1/tasks/${taskId}/events`]);
    expect(mock.mock.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    const [download] = await Promise.all([page.waitForEvent('download'), card(page, taskId).getByRole('link', { name: 'Download 1' }).click()]);
    expect((await readFile((await download.path()) as string)).equals(made[0]!)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('generates a video with live progress from the events route (statuses seen as they came, no task query from the page), playable in the card', async () => {
    const mock = studio.mock as MockServer;
    mock.mock.clearRequests();
    const { page, requests, errors } = await open(studio);
    await page.getByLabel('Generate video').check();
    await page.getByLabel('Prompt').fill('a paper boat on a river');
    await page.getByLabel('Seconds').selectOption('4');
    await page.getByLabel('Aspect ratio').selectOption('9:16');
    // Every status the card shows, as it shows it.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        for (const article of document.querySelectorAll('article[data-status]')) {
          const status = `${article.getAttribute('data-task')}:${article.getAttribute('data-status')}`;
          if (seen.at(-1) !== status) seen.push(status);
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    // The task runs until the page has shown it running: then the test ends it (no race with
    // the watch's cadence, whatever the machine's load).
    mock.mock.setDurations({ video: 3_600_000 });
    const taskId = await generate(page).finally(() => mock.mock.setDurations({ video: 2_500 }));
    await page.locator(`article[data-task="${taskId}"][data-status="processing"]`).waitFor({ timeout: 30_000 });
    mock.mock.completeTask(taskId);
    await page.locator(`article[data-task="${taskId}"][data-status="completed"] video`).waitFor({ timeout: 30_000 });
    const seen = (await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).filter((s) => s.startsWith(taskId)).map((s) => s.slice(taskId.length + 1));
    expect(seen.at(-1)).toBe('completed');
    expect(seen).toContain('processing');
    const video = await page.locator(`article[data-task="${taskId}"] video`).evaluate(
      (element: HTMLVideoElement) =>
        new Promise<{ duration: number; width: number }>((resolve) => {
          const done = () => resolve({ duration: element.duration, width: element.videoWidth });
          if (element.readyState >= 1) done();
          else element.addEventListener('loadedmetadata', done, { once: true });
        }),
    );
    expect(video.duration).toBeGreaterThan(0);
    expect(video.width).toBe(256);
    expect(requests.filter((r) => r.startsWith(`GET /api/omnimedia/v1/tasks/${taskId}`))).toEqual([`GET /api/omnimedia/v1/tasks/${taskId}/events`]);
    expect(mock.mock.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it("refuses invalid parameters in the page with the rules' own messages, and sends nothing", async () => {
    const mock = studio.mock as MockServer;
    mock.mock.clearRequests();
    const { page, requests } = await open(studio);
    requests.length = 0;
    await page.getByLabel('Size').fill('1000x1000');
    await page.getByLabel('Number of images (n)').fill('7');
    await page.getByRole('button', { name: 'Generate' }).click();
    const problems = await page.locator('.problem').allTextContents();
    // The very messages the SDK's ValidationError carries for these params.
    const sdk = await new OmniMedia({ apiKey: 'sk-unused', baseURL: 'http://127.0.0.1:9' }).images
      .generate({ model: 'omni-image', prompt: '', size: '1000x1000', n: 7 as 1 })
      .then(() => [], (error: ValidationError) => error.issues);
    expect(sdk.map((issue) => issue.path)).toEqual(['prompt', 'size', 'n']);
    const labels = { prompt: 'Prompt', size: 'Size', n: 'Number of images (n)' } as Record<string, string>;
    expect(problems).toEqual(sdk.map((issue) => `${labels[issue.path]}: ${issue.message}`));
    // Each message is tied to its control, and the first broken one has the focus.
    expect(await page.getByLabel('Size').getAttribute('aria-describedby')).toBe('size-problem');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-prompt');
    // A video's rules too: a fifth reference image is one too many, before any upload.
    await page.getByLabel('Generate video').check();
    await page.getByLabel('Prompt').fill('a paper boat');
    await page.getByLabel('Images').setInputFiles(['a', 'b', 'c', 'd'].map((name) => ({ name: `${name}.png`, mimeType: 'image/png', buffer: Buffer.from('x') })));
    await page.getByRole('button', { name: 'Generate' }).click();
    expect(await page.locator('.problem').allTextContents()).toEqual(['Images: may reference at most 3 images (got 4)']);
    expect(requests.filter((r) => r.startsWith('POST') || r.includes('/api/omnimedia'))).toEqual([]);
    expect(mock.mock.requests).toEqual([]);
    await page.close();
  }, 60_000);
});
