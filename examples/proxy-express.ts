// A browser app's server in Express (or node:http, or Fastify's raw request): the page uses the
// whole client through `omnimedia/proxy`'s nodeHandler, and the key stays here.
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... node examples/proxy-express.ts
//
// It mounts the proxy, then plays the page once from Node (uploading a file, as a page
// uploads a File the user picked), prints the task, and exits. A real server keeps running.
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { OmniMedia } from 'omnimedia';
import { createProxy } from 'omnimedia/proxy';

// Your app's sessions; here one signed-in user.
const sessions = new Map([['demo-session', { id: 'demo-user' }]]);

// 1. The proxy: your auth decides who may use it; the key and base URL come from the environment.
const proxy = createProxy({
  basePath: '/api/omnimedia',
  authorize: (request) => sessions.get(/(?:^|;\s*)session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1] ?? '') ?? null,
  onSubmitted: ({ identity, operation, task_id }) => console.log(`server: ${identity.id} submitted ${operation} ${task_id}`),
});

const app = express();
// 2. Mount it (before or after express.json(): a JSON body it already read is checked the same).
app.use(proxy.nodeHandler);
app.use(express.json());
app.get('/', (_req, res) => void res.send('your app'));

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', async () => {
  const { port } = server.address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${port}`);
  // 3. What the page does: a File from an <input>, auto-uploaded, then the video, no key.
  const page = new OmniMedia({ proxyURL: `http://127.0.0.1:${port}/api/omnimedia`, defaultHeaders: { cookie: 'session=demo-session' } });
  const photo = new File([await readFile(new URL('./assets/photo.png', import.meta.url))], 'photo.png', { type: 'image/png' });
  const task = await page.videos.generate({ prompt: 'the photo comes alive', images: [photo], seconds: 4 }).wait();
  console.log(`page: ${task.task_id} ${task.status} ${task.data?.[0]?.url ?? ''}`);
  server.close();
  server.closeAllConnections();
});
