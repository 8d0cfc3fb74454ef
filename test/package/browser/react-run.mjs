// Drives Debian's chromium (playwright-core) on the React 19 page (react-page.mjs, served by
// react-server.mjs from the consumer project): (1) it submits a video and follows it with
// useTask; the page is reloaded mid-run and resumes from the id in its URL, to the end, with one
// event stream and no task query; (2) another run whose stream the test cuts mid-run: the page's
// client reopens it and the task ends. Two components follow the task in each: one stream.
// Usage: node react-run.mjs <appDir> <bundle.js>
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [appDir, bundlePath] = process.argv.slice(2);
const server = spawn(process.execPath, ['browser/react-server.mjs', bundlePath], { cwd: appDir, stdio: ['ignore', 'pipe', 'inherit'] });
const started = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const app = /APP_URL=(\S+)/.exec(out)?.[1];
    const mock = /MOCK_URL=(\S+)/.exec(out)?.[1];
    if (app && mock) resolve({ app, mock });
  });
  server.once('exit', (code) => reject(new Error(`react-server exited with ${code}`)));
});

const profile = await mkdtemp(join(tmpdir(), 'omnimedia-chromium-react-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const problems = [];
const report = {};
try {
  const page = await context.newPage();
  const requests = [];
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && console.error(`[page] ${message.text()}`));
  page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  const status = () => page.locator('#status').first().textContent();
  const statusIs = (...wanted) => page.waitForFunction((w) => w.includes(document.querySelector('#status')?.textContent), wanted, { timeout: 30_000 });

  // 1. Submit, reload mid-run, resume.
  await page.goto(`${started.app}/`);
  await statusIs('idle');
  await page.click('#start');
  await statusIs('pending', 'processing');
  await page.waitForFunction(() => location.search.startsWith('?task='));
  const taskId = new URL(page.url()).searchParams.get('task');
  report.beforeReload = await status();
  requests.length = 0;
  await page.reload();
  await statusIs('completed');
  report.afterReload = await status();
  report.result = await page.locator('#result').first().textContent();
  const events = requests.filter((r) => r === `GET /api/omnimedia/v1/tasks/${taskId}/events`).length;
  const queries = requests.filter((r) => r === `GET /api/omnimedia/v1/tasks/${taskId}`).length;
  report.resumed = { events, queries };
  if (report.afterReload !== 'completed' || !/\.mp4$/.test(report.result ?? '')) problems.push(`after the reload: ${report.afterReload} ${report.result}`);
  if (events !== 1 || queries !== 0) problems.push(`after the reload the page made ${events} event streams and ${queries} task queries (want 1 and 0: two components, one stream)`);
  if ((await page.locator('#status').allTextContents()).some((text) => text !== 'completed')) problems.push('the two components disagree');

  // 2. A run whose stream the test cuts mid-run.
  await page.goto(`${started.app}/`);
  requests.length = 0;
  await page.click('#start');
  await statusIs('pending', 'processing');
  const cut = await (await fetch(`${started.app}/cut`, { method: 'POST' })).text();
  await statusIs('completed');
  const second = new URL(page.url()).searchParams.get('task');
  report.cut = {
    connectionsCut: Number(cut),
    streams: requests.filter((r) => r === `GET /api/omnimedia/v1/tasks/${second}/events`).length,
    queries: requests.filter((r) => r === `GET /api/omnimedia/v1/tasks/${second}`).length,
    status: await status(),
  };
  if (report.cut.connectionsCut < 1 || report.cut.streams !== 2 || report.cut.queries !== 0) problems.push(`the cut stream: ${JSON.stringify(report.cut)} (want one cut, 2 streams, 0 queries)`);
  if (errors.length) problems.push(`page errors: ${errors.join('; ')}`);
} catch (error) {
  problems.push(error.stack ?? String(error));
} finally {
  await context.close();
  server.kill('SIGTERM');
  await rm(profile, { recursive: true, force: true });
}
console.log(`chromium (react): ${JSON.stringify(report)}`);
if (problems.length) {
  console.error(`FAIL chromium react: ${problems.join('; ')}`);
  process.exitCode = 1;
} else console.log('ok chromium: a React 19 page follows a video with useTask through the proxy\u2019s event stream, resumes after a reload, and survives a cut stream');
