// The Next.js recipe (examples/proxy-nextjs: the App Router app, TypeScript) as a user deploys
// it, from the packed tarball: installed with the versions its package.json pins, `next build`
// WITHOUT the service's secrets, then `next start` on 127.0.0.1 with them, on the Node runtime
// and on the edge runtime (the route's one `runtime` line changed). Each is opened in Debian's
// Chromium twice: at 127.0.0.1, and at http://app.example through a small reverse proxy that
// sends that public Host (reverse-proxy.mjs). The page signs in (an HttpOnly cookie), generates
// an image, then an image-to-video from a File it picked, all through `proxyURL`; every request
// and response the page sees is searched for the key, and a request Chromium reports failed
// (net::ERR_ABORTED and the like) is a failure.
// Usage: node run.mjs <repo root> <omnimedia tarball> <work dir>   (prints one line of figures)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startReverseProxy } from './reverse-proxy.mjs';

const [root, tarball, work] = process.argv.slice(2);
const { chromium } = createRequire(join(root, 'package.json'))('playwright-core');
const NODE = process.execPath;
const PUBLIC_HOST = 'app.example';
const KEY = `sk-next/${randomBytes(12).toString('hex')}`;
const SESSION = randomBytes(12).toString('hex');
// The key as a page could be handed it: as is, JSON-escaped, percent-encoded, in base64.
const FORMS = [KEY, KEY.replaceAll('/', '\\/'), encodeURIComponent(KEY), Buffer.from(KEY).toString('base64'), Buffer.from(`Bearer ${KEY}`).toString('base64')];
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const figures = {};
const problems = [];
const started = [];

const seconds = (since) => Math.round((performance.now() - since) / 100) / 10;

function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** `next start` on 127.0.0.1 with the service's secrets; resolves once it answers. */
async function startNext(app, env) {
  const port = await freePort();
  const child = spawn(NODE, [join(app, 'node_modules/next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let log = '';
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${log}`);
    const up = await fetch(`${url}/login`, { redirect: 'manual' }).then((r) => r.status === 303, () => false);
    if (up) return { url, log: () => log, stop: () => stop(child) };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`next start did not answer:\n${log}`);
}

async function stop(child) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), resolve()), 5_000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
  });
}

/** The page, at `origin`: sign in, an image, then a video from a picked File. */
async function playPage(browser, origin, label) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen = []; // every request and response: headers and bodies, searched for the key
  const failed = [];
  const pageErrors = [];
  const proxied = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && console.error(`[${label} page] ${message.text()}`));
  page.on('request', (request) => {
    seen.push(`${request.method()} ${request.url()}\n${JSON.stringify(request.headers())}\n${request.postDataBuffer()?.toString('latin1') ?? ''}`);
    if (new URL(request.url()).pathname.startsWith('/api/omnimedia/')) proxied.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  page.on('requestfailed', (request) => failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`));
  const bodies = [];
  page.on('response', (response) =>
    bodies.push(
      (async () => {
        const body = await response.text().catch(() => '');
        seen.push(`${response.status()} ${response.url()}\n${JSON.stringify(await response.allHeaders())}\n${body}`);
      })(),
    ),
  );
  const shown = [];
  try {
    await page.goto(`${origin}/login`);
    if (new URL(page.url()).pathname !== '/') problems.push(`${label}: /login led to ${page.url()}`);
    await page.locator('button[type=submit]').waitFor();
    // Hydrated: the form's action is React's, not a navigation.
    await page.waitForFunction(() => Object.keys(document.querySelector('form') ?? {}).some((key) => key.startsWith('__react')));
    for (const [what, file] of [
      ['image', undefined],
      ['video', { name: 'pixel.png', mimeType: 'image/png', buffer: PNG }],
    ]) {
      await page.locator('input[name=prompt]').fill(`a ${what} from ${label}`);
      if (file) await page.locator('input[name=image]').setInputFiles(file);
      const submitted = page.waitForResponse((response) => /\/v1\/(?:images\/generations|video\/generate)$/.test(response.url()));
      await page.locator('button[type=submit]').click();
      await submitted;
      const before = shown.at(-1)?.url ?? '';
      // Until the page shows this call's end (its last call's result stays on show until then).
      await page.waitForFunction(
        (previous) => ['failed', 'error'].includes(document.querySelector('#status')?.textContent ?? '') || ((document.querySelector('#result')?.textContent ?? previous) !== previous && document.querySelector('#status')?.textContent === 'completed'),
        before,
        { timeout: 60_000 },
      );
      const status = await page.locator('#status').textContent();
      const url = (await page.locator('#result').count()) ? await page.locator('#result').textContent() : '';
      const error = (await page.locator('#error').count()) ? await page.locator('#error').textContent() : '';
      shown.push({ what, status, url, error });
      if (status !== 'completed' || !url) problems.push(`${label} ${what}: ${status} ${error}`);
      if (what === 'video' && !/\.mp4$/.test(url ?? '')) problems.push(`${label} video: result ${url}`);
    }
    await page.waitForTimeout(300); // the last responses' bodies
    await Promise.all(bodies);
  } catch (error) {
    problems.push(`${label}: ${error.message.split('\n')[0]}`);
  } finally {
    await context.close();
  }
  const leaked = seen.filter((text) => FORMS.some((form) => text.includes(form)));
  if (leaked.length) problems.push(`${label}: the key reached the page in ${leaked.length} requests or responses`);
  if (!proxied.includes('POST /api/omnimedia/v1/uploads/images')) problems.push(`${label}: the File was not uploaded through the proxy (${proxied.join(', ')})`);
  if (failed.length) problems.push(`${label}: Chromium reports failed requests: ${failed.join('; ')}`);
  if (pageErrors.length) problems.push(`${label}: page errors: ${pageErrors.join('; ')}`);
  console.log(`${label}: ${JSON.stringify({ shown, proxied: proxied.length, searched: seen.length, failed: failed.length })}`);
  return proxied.length;
}

/**
 * The live page (app/live/page.tsx, useTask), at `origin`: a video submitted, its id put in the
 * URL, the page reloaded mid-run; it resumes from the URL and follows the task's events to the
 * end, seeing a status before the end (Next did not gather the stream), with one event stream
 * and no task query after the reload. And a stream read from Node: its first event at once.
 */
async function playLive(browser, origin, label) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests = [];
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  const statusIs = (...wanted) => page.waitForFunction((w) => w.includes(document.querySelector('#status')?.textContent ?? ''), wanted, { timeout: 60_000 });
  const outcome = {};
  try {
    await page.goto(`${origin}/login`);
    await page.goto(`${origin}/live`);
    outcome.ssr = await page.locator('#status').textContent();
    await page.waitForFunction(() => Object.keys(document.querySelector('form') ?? {}).some((key) => key.startsWith('__react')));
    await page.locator('button[type=submit]').click();
    await statusIs('pending', 'processing');
    await page.waitForFunction(() => location.search.startsWith('?task='), undefined, { timeout: 30_000 });
    const taskId = new URL(page.url()).searchParams.get('task');
    requests.length = 0;
    await page.reload();
    await statusIs('completed');
    outcome.seen = await page.locator('#seen li').allTextContents();
    outcome.streams = requests.filter((r) => r === `GET /api/omnimedia/v1/tasks/${taskId}/events`).length;
    outcome.queries = requests.filter((r) => r === `GET /api/omnimedia/v1/tasks/${taskId}`).length;
    if (!outcome.seen.includes('processing') || outcome.seen.at(-1) !== 'completed') problems.push(`${label} live: the page showed ${outcome.seen.join(' > ')} (a stream gathered to its end shows no processing)`);
    if (outcome.streams !== 1 || outcome.queries !== 0) problems.push(`${label} live: ${outcome.streams} streams and ${outcome.queries} task queries after the reload (want 1 and 0)`);
    if (outcome.ssr !== 'idle') problems.push(`${label} live: the server rendered ${outcome.ssr}`);
    // A page's stream as Node reads it (at 127.0.0.1: only Chromium maps the public host): headers, then the first event at once.
    if (origin.startsWith('http://127.0.0.1')) {
      const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const submitted = await page.evaluate(async () => {
        const response = await fetch('/api/omnimedia/v1/video/generate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'omni_flash', messages: [{ role: 'user', content: 'x' }], seconds: '4' }) });
        return (await response.json()).task_id;
      });
      const opened = performance.now();
      const response = await fetch(`${origin}/api/omnimedia/v1/tasks/${submitted}/events`, { headers: { cookie: cookies } });
      outcome.contentType = response.headers.get('content-type');
      const reader = response.body.getReader();
      let text = '';
      while (!text.includes('event: task')) text += new TextDecoder().decode((await reader.read()).value);
      outcome.firstEventMs = Math.round(performance.now() - opened);
      await reader.cancel();
      if (!outcome.contentType?.startsWith('text/event-stream') || outcome.firstEventMs > 2_000) problems.push(`${label} live: the stream's first event came after ${outcome.firstEventMs} ms (${outcome.contentType})`);
    }
  } catch (error) {
    problems.push(`${label} live: ${error.message.split('\n')[0]}`);
  } finally {
    await context.close();
  }
  if (pageErrors.length) problems.push(`${label} live: page errors: ${pageErrors.join('; ')}`);
  console.log(`${label} live: ${JSON.stringify(outcome)}`);
}

/**
 * The live page's submission, held in flight until the test lets it go (so nothing depends on
 * timing): while held the page shows 'submitting' and its button is disabled; a double click and
 * a third click 300 ms later send ONE `POST /v1/video/generate` upstream (the recipe's
 * <form action> sent two, two paid videos). Then, signed out, a refused submission (401) is
 * shown in the page, which stays (the action's throw replaced it with Next's error page).
 */
async function playLiveGuards(browser, origin, mock, label) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  const outcome = {};
  try {
    await page.goto(`${origin}/login`);
    await page.goto(`${origin}/live`);
    await page.waitForFunction(() => Object.keys(document.querySelector('form') ?? {}).some((key) => key.startsWith('__react')));
    let release;
    const held = new Promise((resolve) => (release = resolve));
    let posted = 0;
    await page.route('**/api/omnimedia/v1/video/generate', async (route) => {
      posted++;
      await held;
      await route.continue();
    });
    const before = mock.mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/video/generate').length;
    const button = page.locator('button[type=submit]');
    await button.dblclick();
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'submitting', undefined, { timeout: 10_000 });
    outcome.disabledInFlight = await button.isDisabled();
    await page.waitForTimeout(300);
    await button.click({ force: true }); // a third click while in flight: a disabled button takes none
    release();
    await page.waitForFunction(() => ['pending', 'processing', 'completed'].includes(document.querySelector('#status')?.textContent ?? ''), undefined, { timeout: 30_000 });
    await page.waitForFunction(() => location.search.startsWith('?task='), undefined, { timeout: 30_000 });
    outcome.pagePosts = posted;
    outcome.upstreamPosts = mock.mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/video/generate').length - before;
    outcome.enabledAfter = !(await button.isDisabled());
    if (!outcome.disabledInFlight) problems.push(`${label} live guards: the button was enabled while the submission was in flight`);
    if (outcome.pagePosts !== 1 || outcome.upstreamPosts !== 1) problems.push(`${label} live guards: ${outcome.pagePosts} POSTs from the page, ${outcome.upstreamPosts} upstream for a double click and a third (want 1)`);
    if (!outcome.enabledAfter) problems.push(`${label} live guards: the button stayed disabled after the submission was answered`);

    // Signed out: the proxy refuses the submission (401); the page shows it and stays.
    await context.clearCookies();
    await page.unroute('**/api/omnimedia/v1/video/generate');
    await page.goto(`${origin}/live`);
    await page.waitForFunction(() => Object.keys(document.querySelector('form') ?? {}).some((key) => key.startsWith('__react')));
    await button.click();
    await page.locator('#error').waitFor({ timeout: 30_000 });
    outcome.refusal = await page.locator('#error').textContent();
    outcome.formAfterRefusal = await page.locator('form').count();
    if (!outcome.refusal || outcome.formAfterRefusal !== 1) problems.push(`${label} live guards: the refusal showed ${JSON.stringify(outcome.refusal)} with ${outcome.formAfterRefusal} form(s)`);
  } catch (error) {
    problems.push(`${label} live guards: ${error.message.split('\n')[0]} ${JSON.stringify(outcome)}`);
  } finally {
    await context.close();
  }
  if (pageErrors.length) problems.push(`${label} live guards: page errors: ${pageErrors.join('; ')}`);
  console.log(`${label} live guards: ${JSON.stringify(outcome)}`);
}

/** The page's client as Next bundled it: the static chunks that hold omnimedia's code. */
async function omnimediaChunks(app) {
  const dir = join(app, '.next/static/chunks');
  const files = (await readdir(dir, { recursive: true })).filter((name) => name.endsWith('.js'));
  let raw = 0;
  let gzip = 0;
  const names = [];
  for (const name of files) {
    const text = await readFile(join(dir, name));
    if (!text.includes('dangerouslyAllowBrowser')) continue;
    names.push(name);
    raw += text.byteLength;
    gzip += gzipSync(text, { level: 9 }).byteLength;
  }
  return { names, kib: Math.round(raw / 102.4) / 10, gzipKib: Math.round(gzip / 102.4) / 10 };
}

const app = join(work, 'nextjs');
let mock;
let browser;
try {
  // 1. The recipe's files, its pinned versions, this tarball.
  let since = performance.now();
  await cp(join(root, 'examples/proxy-nextjs'), app, { recursive: true });
  const manifest = JSON.parse(await readFile(join(app, 'package.json'), 'utf8'));
  manifest.dependencies.omnimedia = `file:${tarball}`;
  await writeFile(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
  figures.installS = seconds(since);

  const appRequire = createRequire(join(app, 'package.json'));
  const { startMockServer } = appRequire('omnimedia/testing');
  mock = await startMockServer({ apiKeys: [KEY], durations: { pending: 50, image: 300, imageEdit: 300, video: 500, videoEdit: 500 } });

  // No secret while building (a CI or container build holds none), nor any of the service's.
  const buildEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  for (const name of Object.keys(buildEnv)) if (name.startsWith('OMNIMEDIA_') || name === 'DEMO_SESSION') delete buildEnv[name];
  const runEnv = { ...buildEnv, OMNIMEDIA_API_KEY: KEY, OMNIMEDIA_BASE_URL: mock.url, DEMO_SESSION: SESSION, NODE_ENV: 'production' };

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`],
  });

  const routeFile = join(app, 'app/api/omnimedia/[...path]/route.ts');
  const recipeRoute = await readFile(routeFile, 'utf8');
  if (!recipeRoute.includes("export const runtime = 'nodejs';")) throw new Error('the recipe route has no runtime line to switch');
  for (const runtime of ['nodejs', 'edge']) {
    await writeFile(routeFile, recipeRoute.replace("export const runtime = 'nodejs';", `export const runtime = '${runtime}';`));
    await rm(join(app, '.next'), { recursive: true, force: true });
    since = performance.now();
    const built = await run(NODE, [join(app, 'node_modules/next/dist/bin/next'), 'build'], { cwd: app, env: buildEnv }).catch((error) => {
      problems.push(`${runtime}: next build failed: ${error.message.slice(0, 4000)}`);
      return undefined;
    });
    figures[`${runtime}BuildS`] = seconds(since);
    if (built === undefined) continue;
    if (runtime === 'nodejs') figures.pageChunk = await omnimediaChunks(app);
    since = performance.now();
    const next = await startNext(app, runEnv);
    const front = await startReverseProxy(next.url);
    try {
      await playPage(browser, next.url, `${runtime} at 127.0.0.1`);
      await playPage(browser, `http://${PUBLIC_HOST}:${front.port}`, `${runtime} behind a reverse proxy (Host: ${PUBLIC_HOST})`);
      // Videos of 6 s for the live page: long enough to reload it mid-run.
      mock.mock.setDurations({ video: 6_000 });
      await playLive(browser, next.url, `${runtime} at 127.0.0.1`);
      await playLive(browser, `http://${PUBLIC_HOST}:${front.port}`, `${runtime} behind a reverse proxy`);
      await playLiveGuards(browser, next.url, mock, `${runtime} at 127.0.0.1`);
      mock.mock.setDurations({ video: 500 });
    } finally {
      await front.close();
      await next.stop();
      const logged = next.log();
      if (logged.includes(KEY)) problems.push(`${runtime}: the key is in the server's log`);
      if (/proxy:|\berror\b/i.test(logged)) console.log(`${runtime} server log:\n${logged}`);
    }
    figures[`${runtime}PagesS`] = seconds(since);
  }
} catch (error) {
  problems.push(error.stack ?? String(error));
} finally {
  await browser?.close();
  for (const child of started) await stop(child);
  await mock?.close();
}

console.log(`nextjs figures: ${JSON.stringify(figures)}`);
if (problems.length) {
  console.error(`FAIL next.js recipe:\n- ${problems.join('\n- ')}`);
  process.exitCode = 1;
} else console.log('ok next.js: the recipe built without secrets, served on the Node and edge runtimes, at 127.0.0.1 and behind a reverse proxy; the key reached no page');
