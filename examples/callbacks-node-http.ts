// A completion-callback receiver on Node's own `http` server, with `.wait()` beside it: the
// wait ends as soon as the callback arrives (polling is only the fallback).
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... PUBLIC_URL=https://your.host node examples/callbacks-node-http.ts
//
// PUBLIC_URL is where the service can reach this server (default http://127.0.0.1:PORT).
// Without an API key the script only receives callbacks; with one it submits one image task
// whose callback comes back here, prints it, and exits.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OmniMedia } from 'omnimedia';

const PATH = '/hooks/omnimedia';
const client = new OmniMedia({
  // With a secret, every callback_url the client sends carries a token, and the handler
  // refuses deliveries without it (401). Rotate with ['new', 'old'].
  ...(process.env.OMNIMEDIA_CALLBACK_SECRET ? { callbackSecret: process.env.OMNIMEDIA_CALLBACK_SECRET } : {}),
});

// The handler checks the token, parses and size-caps the body, re-reads the task from the
// service (verify), drops repeated deliveries, and answers 200 / 4xx / 500.
const handle = client.callbacks.nodeHandler((task) => {
  console.log(`callback: ${task.task_id} ${task.status} ${task.data?.[0]?.url ?? ''}`);
});

const server = createServer((req, res) => {
  if (req.url?.split('?')[0] === PATH) return void handle(req, res);
  res.writeHead(404).end();
});
server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', async () => {
  const { port } = server.address() as AddressInfo;
  const callbackUrl = `${process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`}${PATH}`;
  console.log(`listening on ${callbackUrl}`);
  if (!client.hasApiKey) return;

  const task = await client.images
    .generate({ model: 'omni-image', prompt: 'a lighthouse at dawn', callback_url: callbackUrl })
    .wait();
  console.log(`wait: ${task.task_id} ${task.status}`);
  server.close();
  server.closeAllConnections();
});
