// The studio's page for everyone: every control named by its label, a request made with the
// keyboard alone, and no horizontal scrolling at 1280x800 and 390x844. The guide's screenshots
// (docs/studio-*.png) are taken here from the real page: written into docs/ when
// OMNIMEDIA_UPDATE_SCREENSHOTS=1, else into a temporary directory (so a run leaves the tree as
// it was).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStudio, type RunningStudio } from '../../src/studio/server.ts';
import { builtPage, tempDir } from './helpers.ts';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
let browser: Browser;
let studio: RunningStudio;
let removeDir: () => Promise<void>;
let shots: string;

beforeAll(async () => {
  const [assetsDir, temp] = await Promise.all([builtPage(), tempDir()]);
  removeDir = temp.remove;
  shots = process.env.OMNIMEDIA_UPDATE_SCREENSHOTS === '1' ? DOCS : temp.dir;
  studio = await startStudio({ dir: join(temp.dir, 'studio'), mock: { durations: { pending: 100, image: 300, video: 600 } }, assetsDir, warn: () => {} });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await studio?.close();
  await removeDir?.();
});

async function open(viewport: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport, colorScheme: 'light' });
  await page.goto(studio.url);
  await page.getByRole('heading', { name: 'Gallery' }).waitFor();
  return page;
}

/** Press Tab until `id` has the focus; how many presses it took (at most 40). */
async function tabTo(page: Page, id: string): Promise<number> {
  for (let presses = 1; presses <= 40; presses++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return presses;
  }
  throw new Error(`Tab never reached #${id}`);
}

const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('the studio page, for everyone', () => {
  it('names every control by what it is, for each operation', async () => {
    const page = await open({ width: 1280, height: 800 });
    for (const operation of ['Generate image', 'Edit image', 'Generate video', 'Edit video']) expect(await page.getByRole('radio', { name: operation }).count(), operation).toBe(1);
    const names: Record<string, string[]> = {};
    for (const [operation, op] of [['Generate image', 'g'], ['Edit image', 'e'], ['Generate video', 'v'], ['Edit video', 'w']] as const) {
      await page.getByRole('radio', { name: operation }).check();
      // Every form control has a name, from its label.
      const unnamed = await page.locator('form input, form select, form textarea').evaluateAll((controls) =>
        (controls as HTMLInputElement[]).filter((control) => control.type !== 'radio' && (control.labels?.length ?? 0) === 0 && !control.getAttribute('aria-label')).map((control) => control.outerHTML),
      );
      expect(unnamed, operation).toEqual([]);
      names[op] = await page.locator('form .field > label').allTextContents();
    }
    expect(names).toEqual({
      g: ['Model', 'Prompt', 'Size', 'Number of images (n)', 'Quality'],
      e: ['Model', 'Prompt', 'Images', 'Mask', 'Size', 'Number of images (n)', 'Quality'],
      v: ['Model', 'Prompt', 'Images', 'Seconds', 'Resolution', 'Aspect ratio'],
      w: ['Model', 'Prompt', 'Video', 'Resolution', 'Aspect ratio'],
    });
    await page.close();
  });

  it('makes a request with the keyboard alone, and shows it without horizontal scrolling at 1280x800 (the guide’s screenshot)', async () => {
    const page = await open({ width: 1280, height: 800 });
    // The operation: a radio group, chosen with the arrow keys.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe('op');
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('radio', { name: 'Edit image' }).isChecked()).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('radio', { name: 'Generate image' }).isChecked()).toBe(true);
    await tabTo(page, 'f-prompt');
    await page.keyboard.type('a lighthouse at dawn, in watercolour');
    await tabTo(page, 'f-size');
    await page.keyboard.type('1536x1024');
    await tabTo(page, 'f-n');
    await page.keyboard.type('2');
    await page.keyboard.press('Enter');
    await page.locator('article[data-status="completed"] img').first().waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => [...document.images].length === 2 && [...document.images].every((image) => image.complete && image.naturalWidth > 0));
    // A second request, a video, left running for the picture.
    await page.getByRole('radio', { name: 'Generate video' }).check();
    await page.getByLabel('Prompt').fill('a paper boat on a river');
    await page.getByLabel('Seconds').selectOption('6');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.locator('article[data-status="completed"] video').waitFor({ timeout: 30_000 });
    await page.locator('article').first().getByText('Copy as code').click();
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.screenshot({ path: join(shots, 'studio-desktop.png') });
    await page.close();
  }, 90_000);

  it('reads at 390x844 without horizontal scrolling, the rules’ messages included (the guide’s phone screenshot)', async () => {
    const page = await open({ width: 390, height: 844 });
    await page.getByLabel('Prompt').fill('a lighthouse at dawn');
    await page.getByLabel('Size').fill('4000x1000');
    await page.getByRole('button', { name: 'Generate' }).click();
    expect(await page.locator('.problem').count()).toBeGreaterThan(0);
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.screenshot({ path: join(shots, 'studio-phone.png') });
    await page.getByLabel('Gallery').scrollIntoViewIfNeeded();
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.close();
  }, 60_000);
});
