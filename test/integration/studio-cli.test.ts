// `omnimedia studio` as a user runs it: the package built as it ships (tsup, then the page's
// build script into dist/studio/), the bin started with --mock in a child process; its page
// found beside the bin, served in Chromium with a real image; the attacks refused by the
// packaged server; Ctrl-C: exit 130 with DIR left consistent (the lock released, the journal
// whole). And without a key or --mock: a usage error naming what is missing, nothing started.
import { readFile, readdir, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildStudioPage } from '../../scripts/build-studio.ts';
import { buildCli, runProcess } from '../cli/helpers/built-cli.ts';
import { runCli } from '../cli/helpers/run.ts';
import { raw } from '../studio/helpers.ts';

let cli: string;
let dir: string;

beforeAll(async () => {
  cli = await buildCli();
  await buildStudioPage(join(dirname(cli), 'studio'));
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-studio-cli-'));
}, 600_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('without a key or --mock: a usage error naming what is missing; nothing listens', async () => {
  const ran = await runCli(['studio', '--dir', join(dir, 'unused')], { env: {} });
  expect(ran.code).toBe(2);
  expect(ran.stderr).toContain('the studio needs OMNIMEDIA_API_KEY (or --api-key); or try it with --mock');
});

it('the built bin serves the page from dist/studio/ and makes an image in Chromium; attacks refused; Ctrl-C: exit 130, DIR consistent', async () => {
  const where = join(dir, 'studio');
  let url = '';
  let failure: unknown;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const ran = await runProcess(process.execPath, [cli, 'studio', '--mock', '--dir', where, '--no-open'], {
      onStdout: (text, child) => {
        const found = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})/.exec(text)?.[1];
        if (!found || url) return;
        url = found;
        void (async () => {
          try {
            const port = Number(new URL(url).port);
            expect((await raw(port, '/')).status).toBe(401);
            expect((await raw(port, `/?token=${new URL(url).searchParams.get('token')}`, { headers: { host: `rebind.example:${port}` } })).status).toBe(421);
            const page = await browser.newPage();
            await page.goto(url);
            await page.getByLabel('Prompt').fill('a fox in the snow');
            await page.getByRole('button', { name: 'Generate' }).click();
            await page.locator('article[data-status="completed"] img').waitFor({ timeout: 60_000 });
            await page.waitForFunction(() => {
              const image = document.querySelector('img');
              return image?.complete && image.naturalWidth === 1024;
            });
          } catch (error) {
            failure = error;
          } finally {
            child.kill('SIGINT');
          }
        })();
      },
    });
    expect(failure).toBeUndefined();
    expect(ran.code, ran.stderr).toBe(130);
    expect(ran.stderr).toContain('the journal is complete');
  } finally {
    await browser.close();
  }
  expect(await readdir(where)).not.toContain('studio.lock');
  const lines = (await readFile(join(where, 'journal.jsonl'), 'utf8')).trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type);
  expect(lines).toEqual(['submitting', 'answered', 'finished']);
  expect((await readdir(join(where, 'results'))).filter((name) => name.endsWith('.png'))).toHaveLength(1);
}, 180_000);
