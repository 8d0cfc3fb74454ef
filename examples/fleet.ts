// Two instances of one app sharing a Redis (`omnimedia/redis`): instance A submits a task and
// waits; the service delivers the callback to instance B (as a load balancer might); B verifies
// it and publishes it, and A's wait ends at once, without another query. Then a restart's
// first step: resume the tasks no instance waits on any more (`client.tasks.pending()`).
//
//   npx omnimedia mock --port 4010 &                   # or a real key and base URL
//   redis-server --port 6379 --save '' &               # any Redis you already run
//   npm run build
//   REDIS_URL=redis://127.0.0.1:6379 OMNIMEDIA_BASE_URL=http://127.0.0.1:4010 OMNIMEDIA_API_KEY=sk-mock node examples/fleet.ts
//
// In a real fleet each instance is its own process with this same set-up; both live in this
// script only so that it runs on its own.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { OmniMedia } from 'omnimedia';
import { redisCoordination } from 'omnimedia/redis';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PATH = '/hooks/omnimedia';

/** One instance: its own Redis connection, its coordination, its client, its callback server. */
async function startInstance(name: string) {
  const redis = await createClient({ url: REDIS_URL }).connect();
  const coordination = redisCoordination(redis, { prefix: 'example:' });
  const client = new OmniMedia({
    coordination,
    // Every instance has the same secret, so a callback's token is good wherever it lands.
    callbackSecret: process.env.OMNIMEDIA_CALLBACK_SECRET ?? 'example-fleet-secret',
  });
  const handle = client.callbacks.nodeHandler((task) => console.log(`${name}: callback for ${task.task_id}: ${task.status} (onTask runs once in the fleet)`));
  const server = createServer((req, res) => (req.url?.split('?')[0] === PATH ? void handle(req, res) : void res.writeHead(404).end()));
  await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
  const stop = async () => {
    server.closeAllConnections();
    server.close();
    await coordination.close(); // stops its heartbeat and closes its own subscriber connection
    await redis.quit(); // your client is yours to close
  };
  return { name, client, url, stop };
}

/**
 * `tasks.pending()` reads the journal on Redis; while Redis does not answer (a start-up under
 * load, a failover) it throws rather than say "nothing": a start-up step tries again.
 */
async function pendingOnceRedisAnswers(client: OmniMedia, tries = 10) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.tasks.pending();
    } catch (error) {
      if (attempt === tries) throw error;
      console.log(`the journal cannot be read yet (${(error as Error).message}); trying again in 1 s`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

const a = await startInstance('A');
const b = await startInstance('B');
try {
  // At start-up: the tasks submitted by instances that died before their result came.
  const stranded = await pendingOnceRedisAnswers(a.client);
  console.log(`A: ${stranded.length} stranded task(s) to resume`);
  await Promise.all(stranded.map(({ task_id }) => a.client.tasks.wait(task_id).then((task) => console.log(`A: resumed ${task_id}: ${task.status}`))));

  // A submits, and the callback goes to B.
  const started = Date.now();
  const submission = a.client.images.generate({ model: 'omni-image', prompt: 'a lighthouse at dawn', callback_url: b.url });
  console.log(`A: submitted ${(await submission).task_id}, callback to B`);
  const task = await submission.wait({ onProgress: (t) => console.log(`A: ${t.status}`) });
  console.log(`A: wait ended: ${task.task_id} ${task.status} after ${Date.now() - started} ms`);
} finally {
  await a.stop();
  await b.stop();
}
