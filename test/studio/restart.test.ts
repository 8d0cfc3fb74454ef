// History that survives (DESIGN 15): a studio stopped with a task running, started again on the
// same DIR: the gallery is back, the task is followed again to its end and downloaded, and the
// service saw one POST. The service here is a mock of its own, outliving both studios.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { startStudio, type RunningStudio } from '../../src/studio/server.ts';
import { builtPage, tempDir } from './helpers.ts';

const KEY = 'sk-restart-test';
let browser: Browser;
let service: MockServer;
let dir: string;
let removeDir: () => Promise<void>;
let assetsDir: string;
const studios: RunningStudio[] = [];

const start = async () => {
  const studio = await startStudio({ dir, apiKey: KEY, baseURL: service.url, assetsDir, warn: () => {} });
  studios.push(studio);
  return studio;
};

beforeAll(async () => {
  [assetsDir, { dir, remove: removeDir }] = await Promise.all([builtPage(), tempDir()]);
  service = await startMockServer({ apiKeys: [KEY], durations: { pending: 500, image: 10_000 } });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const studio of studios) await studio.close().catch(() => {});
  await service?.close();
  await removeDir?.();
});

it('a restart with a task running: the gallery is back, the task followed again to its end and downloaded, 1 POST', async () => {
  const first = await start();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const requests: string[] = [];
  page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  await page.goto(first.url);
  await page.getByLabel('Prompt').fill('a harbour at night');
  await page.getByRole('button', { name: 'Generate' }).click();
  const article = page.locator('article[data-task^="task_"]').first();
  await article.waitFor();
  const taskId = (await article.getAttribute('data-task')) as string;
  await page.locator(`article[data-task="${taskId}"][data-status="pending"], article[data-task="${taskId}"][data-status="processing"]`).first().waitFor();
  await first.close();
  // Stopped with the task running (10 s of image work; the page saw it start): nothing finished yet.
  const journaled = async () => (await readFile(join(dir, 'journal.jsonl'), 'utf8')).trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type);
  expect(await journaled()).toEqual(['submitting', 'answered']);

  const second = await start();
  requests.length = 0;
  await page.goto(second.url);
  await page.locator(`article[data-task="${taskId}"]`).waitFor();
  await page.locator(`article[data-task="${taskId}"][data-status="completed"] img`).waitFor({ timeout: 30_000 });
  await page.waitForFunction((id) => {
    const image = document.querySelector<HTMLImageElement>(`article[data-task="${id}"] img`);
    return image?.complete && image.naturalWidth > 0;
  }, taskId);
  expect(await page.locator('article').count()).toBe(1);
  expect(service.mock.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  expect(requests.filter((r) => r.startsWith('POST'))).toEqual([]);
  expect(await journaled()).toEqual(['submitting', 'answered', 'finished']);

  // Reloaded once the task is finished: the card from the journal alone, no stream, no query.
  requests.length = 0;
  await page.reload();
  await page.locator(`article[data-task="${taskId}"][data-status="completed"] img`).waitFor();
  expect(requests.filter((r) => r.includes('/api/omnimedia/'))).toEqual([]);
  await page.close();
}, 120_000);
