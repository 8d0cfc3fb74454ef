// omnimedia/react and a page's waits in a real browser: Debian's Chromium (playwright-core)
// on a React 19 page bundled from the sources (test/react/chromium/page.ts), behind a real
// `createProxy` on node:http in front of the mock service. A service that answers is the mock,
// except where a test makes it answer otherwise (`service.override`). Each stream the page
// opens is counted (`streamsOf`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProxy } from 'omnimedia/proxy';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { browserTwins } from '../../tsup.config.ts';

const KEY = 'sk-chromium-react';
const SRC = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));
const ENTRIES: Record<string, string> = { omnimedia: SRC('index.ts'), 'omnimedia/tasks': SRC('tasks.ts'), 'omnimedia/react': SRC('react/index.ts') };

type Override = (req: IncomingMessage) => { status: number; body: unknown } | undefined;
let mock: MockServer;
let browser: Browser;
let bundle: string;
const servers: Server[] = [];
const service = { override: undefined as Override | undefined };
const requests: string[] = [];

const listen = async (server: Server): Promise<string> => {
  servers.push(server.listen(0, '127.0.0.1'));
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** The service: the mock, or what `service.override` answers. */
async function serviceAnswer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const own = service.override?.(req);
  if (own) return void res.writeHead(own.status, { 'content-type': 'application/json' }).end(JSON.stringify(own.body));
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const answer = await fetch(`${mock.url}${req.url}`, {
    method: req.method ?? 'GET',
    headers: Object.fromEntries(Object.entries(req.headers).filter(([name]) => ['authorization', 'content-type'].includes(name)) as [string, string][]),
    body: chunks.length > 0 ? Buffer.concat(chunks) : null,
  });
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
}

let appURL: string;

beforeAll(async () => {
  mock = await startMockServer({ apiKeys: [KEY], durations: { pending: 1_000, image: 8_000 } });
  const serviceURL = await listen(createServer((req, res) => void serviceAnswer(req, res)));
  const proxy = createProxy({ apiKey: KEY, baseURL: serviceURL, basePath: '/api/omnimedia', authorize: () => ({ id: 'page' }) });
  const built = await build({
    entryPoints: [fileURLToPath(new URL('./chromium/page.ts', import.meta.url))],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    define: { 'process.env.NODE_ENV': '"development"' },
    logLevel: 'warning',
    plugins: [{ name: 'omnimedia-sources', setup: (b) => b.onResolve({ filter: /^omnimedia(\/(tasks|react))?$/ }, (args) => ({ path: ENTRIES[args.path] as string })) }, browserTwins],
  });
  bundle = built.outputFiles[0]?.text ?? '';
  appURL = await listen(
    createServer((req, res) => {
      if (req.url === '/bundle.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      if (req.url === '/' || req.url?.startsWith('/?')) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><div id="root"></div><script type="module" src="/bundle.js"></script>');
      if (req.url === '/favicon.ico') return void res.writeHead(204).end();
      requests.push(`${req.method} ${req.url?.replace('/api/omnimedia', '')}`);
      proxy.nodeHandler(req, res);
    }),
  );
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await mock?.close();
});

afterEach(() => {
  service.override = undefined;
  requests.length = 0;
});

async function openPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${appURL}/`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  return page;
}

/** The page still answers: a frozen main thread does not run this within `ms`. */
async function answers(page: Page, ms = 5_000): Promise<boolean> {
  return Promise.race([page.evaluate(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

const stateOf = (page: Page, name: string) => page.locator(`#${name}`).evaluate((el) => ({ status: el.getAttribute('data-status'), error: el.getAttribute('data-error') }));
const streamsOf = (taskId: string) => requests.filter((line) => line === `GET /v1/tasks/${taskId}/events`).length;
const taskRead = (taskId: string, status: number, body: unknown): Override => (req) => (req.method === 'GET' && req.url === `/v1/tasks/${taskId}` ? { status, body } : undefined);

describe('omnimedia/react in Chromium', () => {
  it('a task the service does not know, with a `status` field in its 404 body: the wait ends (NotFoundError) and the tab stays responsive', async () => {
    const page = await openPage();
    try {
      service.override = taskRead('task_gone', 404, { status: 'error', message: 'task not found' });
      await page.evaluate(() => (window as unknown as { omni: { follow(id: string): void } }).omni.follow('task_gone'));
      await page.waitForFunction(() => document.querySelector('#one')?.getAttribute('data-error'), undefined, { timeout: 15_000 }).catch(() => {});
      expect(await answers(page)).toBe(true);
      expect(await stateOf(page, 'one')).toEqual({ status: 'loading', error: 'NotFoundError' });

      service.override = taskRead('task_gone_too', 404, { status: 403, message: 'task not found' });
      await page.evaluate(() => (window as unknown as { omni: { follow(id: string): void } }).omni.follow('task_gone_too'));
      await page.waitForFunction(() => document.querySelector('#one')?.getAttribute('data-error'), undefined, { timeout: 15_000 }).catch(() => {});
      expect(await answers(page)).toBe(true);
      expect(await stateOf(page, 'one')).toEqual({ status: 'loading', error: 'NotFoundError' });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('a refused submission leaves \'submitting\': idle, with its error', async () => {
    const page = await openPage();
    try {
      service.override = (req) => (req.method === 'POST' ? { status: 402, body: { error: { code: 'insufficient_balance', message: 'top up' } } } : undefined);
      await page.evaluate(() => (window as unknown as { omni: { submit(): void } }).omni.submit());
      await page.waitForFunction(() => document.querySelector('#one')?.getAttribute('data-error'), undefined, { timeout: 15_000 }).catch(() => {});
      expect(await stateOf(page, 'one')).toEqual({ status: 'idle', error: 'InsufficientBalanceError' });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('<Activity> hidden then shown joins the task\'s one watch: one stream open, not a second beside it', async () => {
    const page = await openPage();
    try {
      const submitted = await fetch(`${mock.url}/v1/images/generations`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{"model":"omni-image","prompt":"p"}' });
      const { task_id: taskId } = (await submitted.json()) as { task_id: string };
      type Omni = { omni: { activity(id: string): void; toggle(): void; addSecond(): void } };
      await page.evaluate((id) => (window as unknown as Omni).omni.activity(id), taskId);
      await page.waitForFunction(() => ['pending', 'processing'].includes(document.querySelector('#hideable')?.getAttribute('data-status') ?? ''), undefined, { timeout: 15_000 });
      // Hidden: its effects are gone, so is the watch (its only follower left).
      await page.evaluate(() => (window as unknown as Omni).omni.toggle());
      await page.waitForTimeout(300);
      // Another component follows the task now: a new watch; then the hidden one is shown again.
      await page.evaluate(() => (window as unknown as Omni).omni.addSecond());
      await page.waitForFunction(() => ['pending', 'processing'].includes(document.querySelector('#second')?.getAttribute('data-status') ?? ''), undefined, { timeout: 15_000 });
      await page.evaluate(() => (window as unknown as Omni).omni.toggle());
      await page.waitForTimeout(500);
      // Before: 3 (the shown component restarted its memoised, forgotten store beside the new one).
      expect(streamsOf(taskId)).toBe(2);
      await page.waitForFunction(() => document.querySelector('#hideable')?.getAttribute('data-status') === 'completed', undefined, { timeout: 30_000 });
      expect(await stateOf(page, 'second')).toEqual({ status: 'completed', error: '' });
      expect(streamsOf(taskId)).toBe(2);
    } finally {
      await page.close();
    }
  }, 90_000);
});
