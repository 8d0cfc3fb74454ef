// Drives Debian's chromium (playwright-core) on a browser app's page whose server mounts the
// installed `omnimedia/proxy` (proxy-server.mjs, started here from the consumer project): the
// page signs in (an HttpOnly cookie), then runs the whole client and the AI SDK provider
// through the proxy, and every response it received is searched for the key.
// Usage: node proxy-run.mjs <appDir> <bundle.js>
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [appDir, bundlePath] = process.argv.slice(2);
const server = spawn(process.execPath, ['browser/proxy-server.mjs', bundlePath], { cwd: appDir, stdio: ['ignore', 'pipe', 'inherit'] });
const started = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const app = /APP_URL=(\S+)/.exec(out)?.[1];
    const key = /KEY=(\S+)/.exec(out)?.[1];
    const mock = /MOCK_URL=(\S+)/.exec(out)?.[1];
    if (app && key && mock) resolve({ app, key, mock });
  });
  server.once('exit', (code) => reject(new Error(`proxy-server exited with ${code}`)));
});
const forms = [started.key, started.key.replaceAll('/', '\\/'), encodeURIComponent(started.key), Buffer.from(started.key).toString('base64')];

const profile = await mkdtemp(join(tmpdir(), 'omnimedia-chromium-proxy-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await context.newPage();
  const errors = [];
  const seen = []; // every response the page got: url, status line, headers, body
  const requests = [];
  page.on('pageerror', (error) => {
    errors.push(String(error));
    console.error(`[page error] ${String(error)}`);
  });
  page.on('console', (message) => message.type() === 'error' && console.error(`[page] ${message.text()}`));
  page.on('request', (request) => requests.push(request.url()));
  page.on('response', async (response) => {
    const body = await response.text().catch(() => '');
    seen.push(`${response.status()} ${response.statusText()} ${response.url()}\n${JSON.stringify(await response.allHeaders())}\n${body}`);
  });
  await page.goto(`${started.app}/login`);
  await page.waitForFunction(() => typeof window.proxyFlow === 'function');
  const report = await page.evaluate(() => window.proxyFlow());
  await page.waitForTimeout(200); // the last responses' bodies
  const problems = [];
  if (report.bothSet !== 'apiKey') problems.push(`proxyURL with apiKey: ${report.bothSet}`);
  if (report.baseURL !== `${started.app}/api/omnimedia/`) problems.push(`proxyURL resolved to ${report.baseURL}`);
  if (report.video?.status !== 'completed') problems.push(`video: ${JSON.stringify(report.video)}`);
  if (report.image?.status !== 'completed') problems.push(`image: ${JSON.stringify(report.image)}`);
  if (report.validation !== 'ValidationError') problems.push(`local validation: ${report.validation}`);
  if (report.aiImage?.images !== 1 || report.aiImage.mediaType !== 'image/png' || !report.aiImage.keyless) problems.push(`ai-sdk image: ${JSON.stringify(report.aiImage)}`);
  if (!report.aiVideo?.mp4 || report.aiVideo.model !== 'omni_flash_components_720p_4s') problems.push(`ai-sdk video: ${JSON.stringify(report.aiVideo)}`);
  if (report.cookieVisible !== '') problems.push(`the page can read the session cookie: ${report.cookieVisible}`);
  const proxied = requests.filter((url) => url.startsWith(`${started.app}/api/omnimedia/v1/`));
  // The client's File, the AI SDK's image to edit and its video's reference.
  const uploads = proxied.filter((url) => url.endsWith('/v1/uploads/images')).length;
  if (uploads !== 3) problems.push(`${uploads} uploads went through the proxy, not 3`);
  // Only result files come from the service itself (its public URLs); every API call goes through the proxy.
  const direct = requests.filter((url) => url.startsWith(started.mock) && !new URL(url).pathname.startsWith('/files/results/'));
  if (direct.length) problems.push(`the page talked to the service directly: ${direct.join(', ')}`);
  const leaked = seen.filter((text) => forms.some((form) => text.includes(form)));
  if (leaked.length) problems.push(`the key reached the page in ${leaked.length} responses`);
  if (errors.length) problems.push(`page errors: ${errors.join('; ')}`);
  console.log(`chromium (proxy): ${JSON.stringify({ ...report, requests: proxied.length, responsesSearched: seen.length })}`);
  if (problems.length) {
    console.error(`FAIL chromium proxy: ${problems.join('; ')}`);
    process.exitCode = 1;
  } else {
    console.log(`ok chromium: the whole client and the AI SDK provider behind omnimedia/proxy (File auto-upload, video and image waits, generateImage and generateVideo, ${proxied.length} requests, ${seen.length} responses without the key)`);
  }
} finally {
  await context.close();
  server.kill('SIGTERM');
  await rm(profile, { recursive: true, force: true });
}
