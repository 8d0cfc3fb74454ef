// docs/browser-apps.md, "A dev server on another port", in Debian's Chromium (playwright-core):
// a dev server on one loopback port serves the page, the installed `omnimedia/proxy` runs on
// another with `allowedOrigins: [<the dev server's origin>]` in front of the mock, and the
// session cookie belongs to the proxy's host. The recipe's page completes a task; a page
// without the recipe's `fetch` is refused (401), as the guide says.
// Usage: node dev-server-run.mjs <bundle.js> <mockURL> <repoRoot>   (run from the consumer project,
// whose omnimedia is the tarball's; playwright-core is the repository's devDependency)
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createProxy } from 'omnimedia/proxy';

const [bundlePath, mockURL, root] = process.argv.slice(2);
const { chromium } = await import(pathToFileURL(join(root, 'node_modules/playwright-core/index.mjs')).href);
const bundle = await readFile(bundlePath, 'utf8');
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const dev = createServer((request, response) =>
  request.url === '/page.js'
    ? response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle)
    : response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>'),
);
const devOrigin = `http://localhost:${await listen(dev)}`;
const proxy = createProxy({
  apiKey: 'sk-server',
  baseURL: mockURL,
  basePath: '/api/omnimedia',
  allowedOrigins: [devOrigin],
  authorize: (request) => (/(?:^|;\s*)session=dev-session(?:;|$)/.test(request.headers.get('cookie') ?? '') ? { id: 'dev-user' } : null),
});
const api = createServer(proxy.nodeHandler);
const apiPort = await listen(api);

const profile = await mkdtemp(join(tmpdir(), 'omnimedia-chromium-dev-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  // Signed in on the API's host (localhost: one site whatever the port, so SameSite=Lax is sent).
  await context.addCookies([{ name: 'session', value: 'dev-session', domain: 'localhost', path: '/', httpOnly: true, sameSite: 'Lax' }]);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${devOrigin}/`);
  await page.waitForFunction(() => typeof window.devServerFlow === 'function');
  const report = await page.evaluate((url) => window.devServerFlow(url).catch((error) => ({ failed: `${error.constructor.name}: ${error.message}` })), `http://localhost:${apiPort}/api/omnimedia`);
  const problems = [];
  if (report.status !== 'completed') problems.push(`the recipe's page: ${report.failed ?? report.status}`);
  if (report.without !== 'AuthenticationError 401') problems.push(`without the recipe's fetch: ${report.without}`);
  if (errors.length) problems.push(`page errors: ${errors.join('; ')}`);
  if (problems.length) {
    console.error(`FAIL chromium dev-server recipe: ${problems.join('; ')}`);
    process.exitCode = 1;
  } else console.log(`ok chromium dev-server recipe: page on ${devOrigin}, proxy on :${apiPort}: ${report.status}; without the recipe's fetch: ${report.without}`);
} finally {
  await context.close();
  dev.close();
  api.close();
  await rm(profile, { recursive: true, force: true });
}
