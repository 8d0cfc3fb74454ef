// docs/browser-apps.md, "A page without a bundler", as written: its `index.html` (an import map
// to the browser build) and its `server.mts` (the page, /omnimedia/*.js from the installed
// package's dist/, and omnimedia/proxy on one origin), saved from the guide into the consumer
// project and run by `node server.mts`; Debian's Chromium opens the page with the guide's
// demo cookie and generates an image through the proxy, against the mock.
// Usage: node import-map-run.mjs <repoRoot> <mockURL>   (run from the consumer project, whose
// omnimedia is the tarball's; playwright-core is the repository's devDependency)
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, mockURL] = process.argv.slice(2);
const { chromium } = await import(pathToFileURL(join(root, 'node_modules/playwright-core/index.mjs')).href);
const guide = await readFile(join(root, 'docs/browser-apps.md'), 'utf8');
const start = guide.indexOf('\n## A page without a bundler\n');
const section = guide.slice(start, guide.indexOf('\n## ', start + 5));
const block = (info) => new RegExp(`^\`\`\`${info}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(section)?.[1];
const html = block('html');
const server = block('ts');
if (start === -1 || !html || !server?.startsWith('// server.mts')) throw new Error('docs/browser-apps.md: no "A page without a bundler" with an html and a server.mts block');

const dir = join(process.cwd(), 'import-map');
await mkdir(dir, { recursive: true });
await writeFile(join(dir, 'index.html'), html);
await writeFile(join(dir, 'server.mts'), server);
const child = spawn(process.execPath, ['server.mts'], {
  cwd: dir,
  env: { ...process.env, PORT: '0', OMNIMEDIA_BASE_URL: mockURL, OMNIMEDIA_API_KEY: 'sk-server' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    const found = /http:\/\/localhost:\d+/.exec(out)?.[0];
    if (found) resolve(found);
  });
  child.once('exit', (code) => reject(new Error(`node server.mts exited ${code}: ${out}`)));
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const problems = [];
try {
  const page = await browser.newPage();
  const errors = [];
  const scripts = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('response', (response) => new URL(response.url()).pathname.startsWith('/omnimedia/') && scripts.push(`${response.status()} ${new URL(response.url()).pathname}`));
  await page.goto(url);
  await page.evaluate(() => (document.cookie = 'session=demo')); // as the guide says
  await page.locator('#generate').click();
  await page.waitForFunction(() => /completed|failed/.test(document.querySelector('#status')?.textContent ?? ''), undefined, { timeout: 60_000 });
  const status = await page.locator('#status').textContent();
  await page.waitForFunction(() => document.querySelector('#result')?.naturalWidth > 0, undefined, { timeout: 30_000 }).catch(() => problems.push('the result image did not load'));
  if (status !== 'completed') problems.push(`the page showed "${status}"`);
  if (!scripts.includes('200 /omnimedia/index.browser.js') || scripts.some((s) => !s.startsWith('200 '))) problems.push(`the browser build's files: ${scripts.join(', ')}`);
  if (errors.length) problems.push(`page errors: ${errors.join('; ')}`);
  if (problems.length) {
    console.error(`FAIL chromium import-map page: ${problems.join('; ')}`);
    process.exitCode = 1;
  } else console.log(`ok chromium import-map page (browser-apps.md): ${status}, ${scripts.length} files of the browser build (${scripts.join(', ')})`);
} finally {
  await browser.close();
  child.kill();
}
