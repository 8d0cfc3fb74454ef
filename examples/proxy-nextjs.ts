// Runs the Next.js recipe (examples/proxy-nextjs/app/api/omnimedia/[...path]/route.ts) the way
// the App Router calls a route handler: the exported function of the request's method, given
// the request. (Next.js itself is not a dependency of this repo; the route file is plain.)
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... node examples/proxy-nextjs.ts
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { OmniMedia } from 'omnimedia';
import * as route from './proxy-nextjs/app/api/omnimedia/[...path]/route.ts';

const handlers: Record<string, (request: Request) => Promise<Response>> = { GET: route.GET, POST: route.POST, OPTIONS: route.OPTIONS };
const next = (request: Request) =>
  new URL(request.url).pathname.startsWith('/api/omnimedia/')
    ? (handlers[request.method]?.(request) ?? Promise.resolve(new Response(null, { status: 405 })))
    : Promise.resolve(new Response('not found', { status: 404 }));

const server = serve({ fetch: next, port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? '127.0.0.1' }, async ({ port }) => {
  console.log(`listening on http://127.0.0.1:${port}`);
  // What the page does ('use client'): the whole client, no key.
  const page = new OmniMedia({ proxyURL: `http://127.0.0.1:${port}/api/omnimedia`, defaultHeaders: { cookie: 'session=demo-session' } });
  const { task_id } = await page.images.generate({ model: 'omni-image', prompt: 'a fox in the snow' });
  for await (const task of page.tasks.watch(task_id)) console.log(`page: ${task.task_id} ${task.status}`);
  server.close();
}) as Server;
