// A completion-callback receiver in Hono, a fetch-style framework: the same
// `client.callbacks.handler` serves Next.js route handlers, Bun, Deno and workers.
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... PUBLIC_URL=https://your.host node examples/callbacks-hono.ts
//
// Without an API key the server only receives callbacks; with one it submits one image task
// whose callback comes back here, prints it, and exits.
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { OmniMedia } from 'omnimedia';

const PATH = '/hooks/omnimedia';
const client = new OmniMedia({
  ...(process.env.OMNIMEDIA_CALLBACK_SECRET ? { callbackSecret: process.env.OMNIMEDIA_CALLBACK_SECRET } : {}),
});

let submittedTaskId: string | undefined;
const completed = new Set<string>(); // a fast task may call back before submit() returns
// (request: Request) => Promise<Response>
const handle = client.callbacks.handler(async (task) => {
  console.log(`callback: ${task.task_id} ${task.status} ${task.data?.[0]?.url ?? ''}`);
  if (task.status === 'completed') completed.add(task.task_id);
  stopWhenDone();
});

const app = new Hono();
app.post(PATH, (c) => handle(c.req.raw));

const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? '127.0.0.1' },
  async ({ port }) => {
    const callbackUrl = `${process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`}${PATH}`;
    console.log(`listening on ${callbackUrl}`);
    if (!client.hasApiKey) return;
    const submission = await client.images.generate({ model: 'omni-image', prompt: 'a fox in the snow', callback_url: callbackUrl });
    submittedTaskId = submission.task_id;
    console.log(`submitted: ${submission.task_id}`);
    stopWhenDone();
  },
) as Server;

// The demo ends once its own task has called back; a real receiver keeps running.
function stopWhenDone(): void {
  if (submittedTaskId && completed.has(submittedTaskId)) setImmediate(stop);
}

function stop(): void {
  server.close();
  server.closeAllConnections();
}
