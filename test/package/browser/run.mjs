// Drives Debian's chromium (no browser download) with playwright-core: loads the bundled page
// from its own loopback origin (a different port from the mock, so requests are cross-origin
// and CORS is exercised) and runs the flow against the mock service.
// Usage: node run.mjs <bundle.js> <mockURL> [--expect-progress]
//        node run.mjs <tasks-bundle.js> <mockURL> --tasks   (a page that imports only omnimedia/tasks)
//        node run.mjs <otel-bundle.js> <mockURL> --otel     (a page that traces a wait with omnimedia/otel)
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [bundlePath, baseURL] = process.argv.slice(2);
const expectProgress = process.argv.includes('--expect-progress');
const tasksPage = process.argv.includes('--tasks');
const otelPage = process.argv.includes('--otel');
const bundle = await readFile(bundlePath, 'utf8');

// The page is served from loopback: a page from a public (or intercepted) origin calling
// 127.0.0.1 trips Chromium's local-network-access checks, which a deployed app would not meet.
const pageServer = createServer((request, response) => {
  if (request.url === '/bundle.js') {
    response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
  } else {
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><meta charset="utf-8"><title>omnimedia</title><script type="module" src="/bundle.js"></script>');
  }
});
await new Promise((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
const ORIGIN = `http://127.0.0.1:${pageServer.address().port}`;

const profile = await mkdtemp(join(tmpdir(), 'omnimedia-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && console.error(`[page] ${message.text()}`));
  await page.goto(`${ORIGIN}/`);
  if (otelPage) {
    // The page submits with a key of its own (the mock accepts any) and follows the task.
    await page.waitForFunction(() => typeof window.traceTask === 'function');
    const summary = await page.evaluate((url) => window.traceTask(url).catch((error) => `FAIL ${error.message}`), baseURL);
    if (errors.length || !summary.startsWith('ok ')) {
      console.error(`FAIL chromium omnimedia/otel: ${summary}; ${errors.join('; ')}`);
      process.exitCode = 1;
    } else console.log(summary);
  } else if (tasksPage) {
    // The server's part: submit a task (with a key, from Node); the page only follows it.
    const submitted = await fetch(`${baseURL}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-server', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'omni-image', prompt: 'a lighthouse' }),
    }).then((response) => response.json());
    await page.waitForFunction(() => typeof window.followTask === 'function');
    const report = await page.evaluate(([url, id]) => window.followTask(url, id), [baseURL, submitted.task_id]);
    const shown = await page.locator('#progress li').allTextContents();
    const problems = [];
    if (report.status !== 'completed' || !report.terminal) problems.push(`wait ended with ${report.status}`);
    if (report.retrieved !== 'completed') problems.push(`retrieve gave ${report.retrieved}`);
    if (report.watched.at(-1) !== 'completed') problems.push(`watch ended with ${report.watched.at(-1)}`);
    if (shown.length === 0 || !shown.at(-1)?.startsWith('completed')) problems.push(`the page rendered ${JSON.stringify(shown)}`);
    if (errors.length) problems.push(`page errors: ${errors.join('; ')}`);
    console.log(`chromium (omnimedia/tasks): ${JSON.stringify({ ...report, shown })}`);
    if (problems.length) {
      console.error(`FAIL chromium omnimedia/tasks: ${problems.join('; ')}`);
      process.exitCode = 1;
    } else console.log(`ok chromium: a page with only omnimedia/tasks followed ${submitted.task_id} to completion, rendering ${shown.length} steps`);
  } else {
    await page.waitForFunction(() => typeof window.omnimediaFlow === 'function');
    const report = await page.evaluate((url) => window.omnimediaFlow(url), baseURL);
    const problems = [];
    if (report.guard !== 'threw') problems.push(`key without dangerouslyAllowBrowser: ${report.guard}`);
    if (!report.uploadUrl) problems.push('upload returned no url');
    if (report.status !== 'completed') problems.push(`keyless wait ended with ${report.status}`);
    if (expectProgress && !(report.progressEvents > 0)) problems.push('no upload progress events');
    if (errors.length) problems.push(`page errors: ${errors.join('; ')}`);
    console.log(`chromium: ${JSON.stringify(report)}`);
    if (problems.length) {
      console.error(`FAIL chromium: ${problems.join('; ')}`);
      process.exitCode = 1;
    } else {
      const version = /Chrome\/([\d.]+)/.exec(report.userAgent)?.[1] ?? '';
      console.log(`ok chromium ${version}: key guard, File upload, edit, keyless wait ${report.status}`);
    }
  }
} finally {
  await context.close();
  pageServer.close();
  await rm(profile, { recursive: true, force: true });
}
