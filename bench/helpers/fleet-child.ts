// One instance of bench/suites/fleet.ts, in a process of its own: the built package's client
// (shared coordination on Redis, or none), its own nodeHandler server on loopback. It submits
// its share of the tasks with a callback_url, waits on each, and reports every wait's end.
// FLEET_MODE=paired: half its tasks have a callback_url (the others end by polling), and it
// also waits on `count` tasks of another instance, which the parent forwards ('wait').
// argv: <baseURL> <count> <redisUrl | none | cluster:url,url,...> <verify: true | false> [prefix]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, createCluster } from 'redis';
import { OmniMedia } from 'omnimedia';
import { redisCoordination } from 'omnimedia/redis';

const [baseURL, countArg, redisUrl, verifyArg, prefix = 'bench:'] = process.argv.slice(2) as [string, string, string, string, string?];
const count = Number(countArg);
const paired = process.env.FLEET_MODE === 'paired';

const redis =
  redisUrl === 'none'
    ? undefined
    : redisUrl.startsWith('cluster:')
      ? await createCluster({ rootNodes: redisUrl.slice('cluster:'.length).split(',').map((url) => ({ url })) }).connect()
      : await createClient({ url: redisUrl }).connect();
// Every command the coordination sends is one round trip to Redis: count them.
let roundTrips = 0;
if (redis) {
  const send = (redis.sendCommand as (...args: unknown[]) => Promise<unknown>).bind(redis);
  (redis as { sendCommand: unknown }).sendCommand = (...args: unknown[]) => {
    roundTrips++;
    return send(...args);
  };
  // On a cluster, a journal write's WAIT goes to the node client of its slot: counted too.
  const nodeClient = (redis as { getNodeClientForKey?: (key: string) => Promise<{ sendCommand: (...args: unknown[]) => Promise<unknown> }> }).getNodeClientForKey?.bind(redis);
  if (nodeClient)
    (redis as { getNodeClientForKey: unknown }).getNodeClientForKey = async (key: string) => {
      const node = await nodeClient(key);
      return { sendCommand: (...args: unknown[]) => (roundTrips++, node.sendCommand(...args)) };
    };
}
const coordination = redis ? redisCoordination(redis, { prefix }) : undefined;
const client = new OmniMedia({
  apiKey: 'sk-bench',
  baseURL,
  // The same secret on every instance: a callback's token is good wherever it lands.
  callbackSecret: 'fleet-bench-secret',
  logLevel: 'off',
  ...(coordination ? { coordination } : {}),
});

const server = createServer(client.callbacks.nodeHandler(() => {}, { verify: verifyArg === 'true' }));
server.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
process.send?.({ event: 'ready', origin });

// The parent says go once every instance has told its origin to the service, forwards the
// tasks of another instance to wait on (paired), and says close at the end.
const parent = (word: 'go' | 'close') => new Promise((resolve) => process.on('message', (m) => m === word && resolve(undefined)));
const waits: Promise<void>[] = [];
const track = (id: string, wait: Promise<unknown>) =>
  wait.then(
    () => void process.send?.({ event: 'resolved', id, at: Date.now() }),
    (error: unknown) => void process.send?.({ event: 'rejected', id, error: String(error) }),
  );
let foreignDone: Promise<unknown> = Promise.resolve();
if (paired) {
  const foreign: Promise<void>[] = [];
  foreignDone = new Promise((resolve) =>
    process.on('message', (m: { event?: string; id?: string }) => {
      if (m?.event !== 'wait' || !m.id) return;
      foreign.push(track(m.id, client.tasks.wait(m.id, { timeout: 10 * 60_000 })));
      if (foreign.length === count) resolve(Promise.all(foreign));
    }),
  );
}
await parent('go');
for (let i = 0; i < count; i++) {
  const withCallback = !paired || i % 2 === 0;
  const submission = client.images.generate({ model: 'omni-image', prompt: `fleet ${i}`, ...(withCallback ? { callback_url: `${origin}/cb` } : {}) });
  const { task_id } = await submission;
  if (paired) process.send?.({ event: 'submitted', id: task_id });
  waits.push(track(task_id, submission.wait({ timeout: 10 * 60_000 })));
}
await Promise.all(waits);
await foreignDone;
process.send?.({ event: 'done', roundTrips });
await parent('close');
server.closeAllConnections();
server.close();
await coordination?.close();
redis?.destroy();
process.disconnect();
