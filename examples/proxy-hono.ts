// A browser app's server in Hono (any fetch-style server: Bun, Deno, workers): the page uses
// the whole client through `omnimedia/proxy`, and the key stays here.
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... node examples/proxy-hono.ts
//
// It mounts the proxy, then plays the page once from Node (with the session cookie a browser
// would send), prints the task, and exits. A real server keeps running.
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { OmniMedia } from 'omnimedia';
import { createProxy } from 'omnimedia/proxy';

// Your app's sessions; here one signed-in user.
const sessions = new Map([['demo-session', { id: 'demo-user' }]]);

// 1. The proxy: your auth decides who may use it; the key and base URL come from the environment.
const proxy = createProxy({
  basePath: '/api/omnimedia',
  authorize: (request) => sessions.get(/(?:^|;\s*)session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1] ?? '') ?? null,
  rateLimit: { submissions: { limit: 20, windowMs: 60_000 }, uploads: { limit: 50, windowMs: 60_000 } },
});

const app = new Hono();
// 2. Mount it.
app.all('/api/omnimedia/*', (c) => proxy.handler(c.req.raw));
app.get('/', (c) => c.text(getCookie(c, 'session') ? 'signed in' : 'signed out'));

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? '127.0.0.1' }, async ({ port }) => {
  console.log(`listening on http://127.0.0.1:${port}`);
  // 3. What the page does: `new OmniMedia({ proxyURL: '/api/omnimedia' })`, no key.
  const page = new OmniMedia({ proxyURL: `http://127.0.0.1:${port}/api/omnimedia`, defaultHeaders: { cookie: 'session=demo-session' } });
  const task = await page.images.generate({ model: 'omni-image', prompt: 'a lighthouse at dawn' }).wait();
  console.log(`page: ${task.task_id} ${task.status} ${task.data?.[0]?.url ?? ''}`);
  server.close();
}) as Server;
