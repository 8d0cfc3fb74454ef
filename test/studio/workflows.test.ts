// The studio's other workflows in Chromium (the studio with the mock in its process, as
// `--mock`): an image edit with images by file picker and by drag and drop and a mask, all
// uploaded through the proxy; a video edit; "run again with changes"; and "copy as code", each
// of the three run as copied in a shell (`npx omnimedia` is the repository's CLI there).
import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from 'omnimedia/testing';
import { startStudio, type RunningStudio } from '../../src/studio/server.ts';
import { encodePng } from '../../src/testing/png.ts';
import { sampleMp4Bytes } from '../../src/testing/results.ts';
import { builtPage, tempDir } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let browser: Browser;
let studio: RunningStudio;
let mock: MockServer;
let dir: string;
let removeDir: () => Promise<void>;
let page: Page;
let png: Buffer;

beforeAll(async () => {
  const [assetsDir, temp] = await Promise.all([builtPage(), tempDir()]);
  ({ dir, remove: removeDir } = temp);
  studio = await startStudio({ dir: join(dir, 'studio'), mock: { durations: { pending: 100, image: 300, imageEdit: 300, video: 500, videoEdit: 500 } }, assetsDir, warn: () => {} });
  mock = studio.mock as MockServer;
  png = Buffer.from(await encodePng(512, 512));
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(studio.url);
  await page.getByRole('heading', { name: 'Gallery' }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await studio?.close();
  await removeDir?.();
});

/** Submit the form and wait for the new card's task to complete; its task id. */
async function submitAndFinish(): Promise<string> {
  const before = new Set(await page.locator('article[data-task]').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-task'))));
  await page.getByRole('button', { name: 'Generate' }).click();
  const taskId = await page.waitForFunction(
    (known) => [...document.querySelectorAll('article[data-task^="task_"]')].map((card) => card.getAttribute('data-task')).find((id) => !known.includes(id)),
    [...before],
    { timeout: 30_000 },
  );
  const id = (await taskId.jsonValue()) as string;
  await page.locator(`article[data-task="${id}"][data-status="completed"]`).waitFor({ timeout: 30_000 });
  return id;
}

/** The journaled body of a task's submission. */
async function journaled(taskId: string): Promise<Record<string, unknown>> {
  const lines = (await readFile(join(dir, 'studio', 'journal.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const id = lines.find((line) => line.task_id === taskId)?.id;
  return lines.find((line) => line.id === id && line.type === 'submitting')?.params as Record<string, unknown>;
}

describe('the studio workflows', () => {
  let editTask: string;

  it('edits an image: one image by the file picker, one by drag and drop, and a mask, uploaded through the proxy', async () => {
    await page.getByLabel('Edit image').check();
    await page.getByLabel('Prompt').fill('make it snow');
    await page.getByLabel('Images', { exact: true }).setInputFiles({ name: 'street.png', mimeType: 'image/png', buffer: png });
    // Dropped on the images' drop zone, as a file dragged from the desktop.
    await page.evaluate(async (bytes) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], 'dropped.png', { type: 'image/png' }));
      document.getElementById('f-images')?.closest('.drop')?.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, [...png]);
    await page.getByLabel('Mask').setInputFiles({ name: 'mask.png', mimeType: 'image/png', buffer: png });
    expect(await page.locator('.chosen li').allTextContents()).toEqual(['street.png ×', 'dropped.png ×', 'mask.png ×']);
    mock.mock.clearRequests();
    editTask = await submitAndFinish();
    expect(mock.mock.requests.map((r) => `${r.method} ${r.path}`).filter((r) => r.startsWith('POST'))).toEqual([
      'POST /v1/uploads/images',
      'POST /v1/uploads/images',
      'POST /v1/uploads/images',
      'POST /v1/images/edits',
    ]);
    const params = await journaled(editTask);
    expect(params).toMatchObject({ prompt: 'make it snow', image: [expect.stringMatching(/^http/), expect.stringMatching(/^http/)], mask: expect.stringMatching(/^http/) });
    await page.locator(`article[data-task="${editTask}"] img`).waitFor();
  }, 90_000);

  it('runs it again with changes: the form holds the same uploads (not sent again) and the new prompt', async () => {
    await page.locator(`article[data-task="${editTask}"]`).getByRole('button', { name: 'Run again with changes' }).click();
    expect(await page.getByLabel('Edit image').isChecked()).toBe(true);
    expect(await page.getByLabel('Prompt').inputValue()).toBe('make it snow');
    await page.getByLabel('Prompt').fill('make it rain');
    mock.mock.clearRequests();
    const again = await submitAndFinish();
    expect(mock.mock.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/v1/images/edits']);
    const [first, second] = [await journaled(editTask), await journaled(again)];
    expect(second).toEqual({ ...first, prompt: 'make it rain' });
  }, 90_000);

  it('edits a video uploaded through the proxy; the result plays', async () => {
    await page.getByLabel('Edit video').check();
    await page.getByLabel('Prompt').fill('add falling leaves');
    await page.getByLabel('Video', { exact: true }).setInputFiles({ name: 'clip.mp4', mimeType: 'video/mp4', buffer: Buffer.from(sampleMp4Bytes()) });
    mock.mock.clearRequests();
    const taskId = await submitAndFinish();
    expect(mock.mock.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/v1/uploads/videos', '/v1/video/edits']);
    expect(await journaled(taskId)).toMatchObject({ input_video: { upload_id: expect.any(String) } });
    const duration = await page.locator(`article[data-task="${taskId}"] video`).evaluate(
      (video: HTMLVideoElement) => new Promise<number>((resolve) => (video.readyState >= 1 ? resolve(video.duration) : video.addEventListener('loadedmetadata', () => resolve(video.duration), { once: true }))),
    );
    expect(duration).toBeGreaterThan(0);
  }, 90_000);

  it('copy as code: the TypeScript program, the CLI line and the batch line each run as copied, against the mock the studio names', async () => {
    await page.getByLabel('Generate image').check();
    await page.getByLabel('Prompt').fill("the keeper's lighthouse, at dawn");
    await page.getByLabel('Size').fill('1536x1024');
    await page.getByLabel('Number of images (n)').fill('2');
    const taskId = await submitAndFinish();
    const card = page.locator(`article[data-task="${taskId}"]`);
    await card.getByText('Copy as code').click();
    const [ts, cli, jsonl, batch] = (await Promise.all(['TypeScript', 'CLI', 'Batch JSONL', 'Batch command'].map((label) => card.getByLabel(label, { exact: true }).inputValue()))) as [string, string, string, string];
    // A shell whose `npx omnimedia` is this repository's CLI (from source), in a fresh directory.
    const work = join(dir, 'copied');
    const bin = join(work, 'bin');
    await mkdir(bin, { recursive: true });
    // The repository's pinned Node (24) runs the CLI from source, as the other CLI tests do: the
    // suite's runs on Node 26 refuse --experimental-transform-types (exit 9).
    const node = process.execPath;
    const pinnedNode = join(ROOT, 'node_modules/.bin/node');
    const hooks = join(ROOT, 'test/helpers/omnimedia-from-src.mjs');
    await writeFile(join(bin, 'npx'), `#!/bin/sh\n[ "$1" = omnimedia ] && shift\nexec "${pinnedNode}" --experimental-transform-types --no-warnings --import "${hooks}" "${join(ROOT, 'src/cli/index.ts')}" "$@"\n`);
    await chmod(join(bin, 'npx'), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: work };
    // Asynchronous: the mock answering them runs in this process.
    const run = (command: string, args: string[], cwd: string) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(command, args, { cwd, env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const shell = (line: string, cwd: string) => run('sh', ['-c', line], cwd);

    await mkdir(join(work, 'cli'));
    const ranCli = await shell(cli, join(work, 'cli'));
    expect(ranCli.stderr + ranCli.stdout).not.toMatch(/error/i);
    expect(ranCli.status).toBe(0);
    expect((await readdir(join(work, 'cli'))).filter((name) => name.endsWith('.png'))).toHaveLength(2);

    await mkdir(join(work, 'batch'));
    await writeFile(join(work, 'batch', 'jobs.jsonl'), `${jsonl}\n`);
    const ranBatch = await shell(batch, join(work, 'batch'));
    expect(ranBatch.status, ranBatch.stderr + ranBatch.stdout).toBe(0);
    const results = (await readFile(join(work, 'batch', 'results', 'results.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { status: string });
    expect(results.map((line) => line.status)).toEqual(['completed']);

    await mkdir(join(work, 'ts'));
    await writeFile(join(work, 'ts', 'copied.ts'), ts);
    const ranTs = await run(node, ['--no-warnings', '--import', hooks, 'copied.ts'], join(work, 'ts'));
    expect(ranTs.stderr).toBe('');
    expect(ranTs.stdout).toMatch(/^task_\S+ completed/);
    expect((await readdir(join(work, 'ts'))).filter((name) => name.endsWith('.png'))).toHaveLength(2);

    // Each was the same request: two 1536x1024 images (a PNG's size is in its header).
    const sizes = async (folder: string) =>
      Promise.all(
        (await readdir(folder)).filter((name) => name.endsWith('.png')).map(async (name) => {
          const head = await readFile(join(folder, name));
          return `${head.readUInt32BE(16)}x${head.readUInt32BE(20)}`;
        }),
      );
    for (const folder of [join(work, 'cli'), join(work, 'ts'), join(work, 'batch', 'results', 'files')]) expect(await sizes(folder), folder).toEqual(['1536x1024', '1536x1024']);
  }, 180_000);
});
