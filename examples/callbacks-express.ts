// A completion-callback receiver in Express. The handler reads the raw body itself, and also
// works after express.json() (or express.raw()/express.text()) has read it.
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... PUBLIC_URL=https://your.host node examples/callbacks-express.ts
//
// Without an API key the server only receives callbacks; with one it submits one video task
// whose callback comes back here, prints it, and exits.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { OmniMedia } from 'omnimedia';

const PATH = '/hooks/omnimedia';
const client = new OmniMedia({
  ...(process.env.OMNIMEDIA_CALLBACK_SECRET ? { callbackSecret: process.env.OMNIMEDIA_CALLBACK_SECRET } : {}),
});

let submittedTaskId: string | undefined;
const completed = new Set<string>(); // a fast task may call back before submit() returns
const app = express();
app.use(express.json()); // optional: the handler copes either way

app.post(
  PATH,
  client.callbacks.nodeHandler(async (task) => {
    // Verified: this is the service's own version of the task, not the posted body.
    console.log(`callback: ${task.task_id} ${task.status} ${task.data?.[0]?.url ?? ''}`);
    if (task.status === 'completed') completed.add(task.task_id);
    stopWhenDone();
  }),
);

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', async () => {
  const { port } = server.address() as AddressInfo;
  const callbackUrl = `${process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`}${PATH}`;
  console.log(`listening on ${callbackUrl}`);
  if (!client.hasApiKey) return;
  const submission = await client.videos.generate({ prompt: 'a paper boat on a river', seconds: 4, callback_url: callbackUrl });
  submittedTaskId = submission.task_id;
  console.log(`submitted: ${submission.task_id}`);
  stopWhenDone();
});

// The demo ends once its own task has called back; a real receiver keeps running.
function stopWhenDone(): void {
  if (submittedTaskId && completed.has(submittedTaskId)) setImmediate(stop);
}

function stop(): void {
  server.close();
  server.closeAllConnections();
}
