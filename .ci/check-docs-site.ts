// After `npm run docs:build`: the built documentation site holds no broken link and loads in a
// browser. (1) Every link of every page: a page of the site exists and, with a #fragment, holds
// that id; a link into the repository (<repository>/blob|tree/main/<path>) names a file or
// folder that exists. (2) Debian's Chromium (playwright-core, as test/package/browser/ does)
// loads the home page and two guides from a loopback server: no console error, no failed
// request, no broken image, and the local search finds a guide; a screenshot of the home page is
// kept in .ci-artifacts/ for CI's artifacts.
// Usage: node .ci/check-docs-site.ts [--no-browser]
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, posix, relative } from 'node:path';
import { chromium } from 'playwright-core';
import { guides, repositoryURL, ROOT } from '../docs/.vitepress/guides.ts';

const DIST = join(ROOT, 'docs/.vitepress/dist');
const ARTIFACTS = join(ROOT, '.ci-artifacts');
if (!existsSync(join(DIST, 'index.html'))) throw new Error('docs/.vitepress/dist is missing: run `npm run docs:build` first');

const pages = (function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : name.endsWith('.html') ? [path] : [];
  });
})(DIST);

const idsCache = new Map<string, Set<string>>();
const ids = (file: string) => {
  let found = idsCache.get(file);
  if (!found) idsCache.set(file, (found = new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => decodeHTML(m[1]!)))));
  return found;
};
const decodeHTML = (text: string) => text.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

/** The built file a site path names (`/a/b`, `/a/b.html`, `/a/`), or undefined. */
function builtFile(path: string): string | undefined {
  const clean = decodeURIComponent(path).replace(/^\//, '');
  for (const candidate of [clean, `${clean}.html`, join(clean, 'index.html')]) {
    const file = join(DIST, candidate);
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

const repository = repositoryURL();
const problems: string[] = [];
let checked = 0;
for (const page of pages) {
  const html = readFileSync(page, 'utf8');
  const where = relative(DIST, page);
  for (const [, raw] of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
    const href = decodeHTML(raw!);
    checked++;
    if (href.startsWith(`${repository}/`)) {
      const path = /^\/(?:blob|tree)\/main\/([^#?]+)/.exec(href.slice(repository.length))?.[1];
      if (path === undefined) {
        if (!/^\/(issues|edit\/main\/)/.test(href.slice(repository.length))) problems.push(`${where}: ${href} is not a file of the repository's main branch`);
      } else if (!existsSync(join(ROOT, decodeURIComponent(path)))) problems.push(`${where}: ${href} names no file of the repository`);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // another site, mailto:...
    const [target = '', fragment] = href.split('#', 2);
    const file = target === '' ? page : builtFile(target.startsWith('/') ? target : posix.join(posix.dirname(`/${where}`), target));
    if (!file) {
      problems.push(`${where}: ${href}: no such page`);
      continue;
    }
    if (fragment && !ids(file).has(decodeURIComponent(fragment))) problems.push(`${where}: ${href}: no #${decodeURIComponent(fragment)} in ${relative(DIST, file)}`);
  }
}
console.log(`links: ${checked} in ${pages.length} pages${problems.length ? `, ${problems.length} broken` : ', none broken'}`);

if (!process.argv.includes('--no-browser') && problems.length === 0) await inChromium();
if (problems.length) {
  console.error(problems.map((p) => `  ${p}`).join('\n'));
  process.exitCode = 1;
}

async function inChromium() {
  const types: Record<string, string> = {
    '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png',
    '.woff2': 'font/woff2', '.json': 'application/json', '.ico': 'image/x-icon',
  };
  const server = createServer((request, response) => {
    const file = builtFile(new URL(request.url ?? '/', 'http://site').pathname);
    if (!file) return void response.writeHead(404, { 'content-type': 'text/html' }).end(readFileSync(join(DIST, '404.html')));
    response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const profile = await mkdtemp(join(tmpdir(), 'omnimedia-docs-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    // The home page, a guide with a picture (the cadence chart) and the one with the most tables.
    const shown = ['waiting', 'browser-apps'];
    const missing = shown.filter((name) => !guides().some((g) => g.page === name));
    if (missing.length) throw new Error(`no guide ${missing.join(', ')} in the README's list: choose others here`);
    const paths = ['/', ...shown.map((name) => `/${name}.html`)];
    for (const path of paths) {
      const page = await context.newPage();
      const seen: string[] = [];
      page.on('console', (message) => message.type() === 'error' && seen.push(`console: ${message.text()}`));
      page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
      page.on('requestfailed', (request) => seen.push(`request failed: ${request.url()}`));
      page.on('response', (response) => response.status() >= 400 && seen.push(`${response.status()}: ${response.url()}`));
      await page.goto(`${origin}${path}`, { waitUntil: 'networkidle' });
      const title = await page.title();
      const broken = await page.$$eval('img', (images) => images.filter((img) => !img.complete || img.naturalWidth === 0).map((img) => img.src));
      for (const src of broken) seen.push(`broken image: ${src}`);
      const heading = await page.locator('main h1').first().textContent();
      if (!heading?.trim()) seen.push('no heading');
      if (path === '/') {
        mkdirSync(ARTIFACTS, { recursive: true });
        const shot = join(ARTIFACTS, 'docs-home.png');
        await page.screenshot({ path: shot });
        console.log(`screenshot: ${relative(ROOT, shot)}`);
        // The local search: its box opens and finds the guide on callbacks.
        await page.locator('.DocSearch-Button').click();
        await page.locator('.VPLocalSearchBox .search-input').fill('callbackSecret');
        await page.locator('.VPLocalSearchBox .result').first().waitFor({ timeout: 10_000 }).catch(() => {});
        const hits = await page.locator('.VPLocalSearchBox .result').count();
        if (hits === 0) seen.push('the local search found nothing for "callbackSecret"');
        else console.log(`search: ${hits} results for "callbackSecret"`);
      }
      if (seen.length) problems.push(...seen.map((s) => `chromium ${path}: ${s}`));
      else console.log(`ok chromium ${path}: "${title}", ${broken.length} broken images, no console error`);
      await page.close();
    }
  } finally {
    await context.close();
    server.close();
    await rm(profile, { recursive: true, force: true });
  }
}
