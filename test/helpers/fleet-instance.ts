// One instance of a fleet, in a child process of its own (test/redis/fleet-suite.ts, the fleet
// bench): its own Redis client and coordination, its own OmniMedia client and its own
// nodeHandler server, driven by the parent over IPC. Run with
// `node --import test/helpers/omnimedia-from-src.mjs test/helpers/fleet-instance.ts`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OmniMedia, type WaitOptions } from 'omnimedia';
import { redisCoordination } from 'omnimedia/redis';

type Command =
  | {
      type: 'init';
      /** One URL; on a cluster, the root nodes' URLs joined by commas. */
      redisUrl: string;
      redisClient: 'node-redis' | 'ioredis';
      cluster?: boolean;
      prefix?: string;
      baseURL: string;
      maxPollsPerSecond: number;
      leaseMs: number;
      commandTimeoutMs?: number;
    }
  | { type: 'submit'; count: number; withCallback: boolean }
  | { type: 'wait'; ids: string[]; options: WaitOptions }
  | { type: 'pending' }
  | { type: 'close' };

const send = (message: unknown) => process.send?.(message);
let client: OmniMedia | undefined;
let close: (() => Promise<void>) | undefined;
let callbackURL = '';

async function init(command: Extract<Command, { type: 'init' }>): Promise<unknown> {
  let redis: Parameters<typeof redisCoordination>[0];
  let quit: () => Promise<void>;
  const silent = { error() {}, warn: (message: string) => send({ event: 'log', message }), info() {}, debug() {} };
  const urls = command.redisUrl.split(',');
  if (command.cluster && command.redisClient === 'ioredis') {
    const { Cluster } = await import('ioredis');
    const io = new Cluster(urls.map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) })));
    io.on('error', () => {});
    redis = io;
    quit = async () => void io.disconnect();
  } else if (command.cluster) {
    const { createCluster } = await import('redis');
    const cluster = createCluster({ rootNodes: urls.map((url) => ({ url })) });
    cluster.on('error', () => {});
    await cluster.connect();
    redis = cluster as unknown as Parameters<typeof redisCoordination>[0];
    quit = async () => cluster.destroy();
  } else if (command.redisClient === 'ioredis') {
    const { Redis } = await import('ioredis');
    const io = new Redis(command.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: false });
    io.on('error', () => {});
    redis = io;
    quit = async () => void io.disconnect();
  } else {
    const { createClient } = await import('redis');
    const nodeRedis = createClient({ url: command.redisUrl, socket: { reconnectStrategy: () => 200 } });
    nodeRedis.on('error', () => {});
    await nodeRedis.connect();
    redis = nodeRedis as unknown as Parameters<typeof redisCoordination>[0];
    quit = async () => nodeRedis.destroy();
  }
  const coordination = redisCoordination(redis, { prefix: command.prefix ?? 'fleet:', leaseMs: command.leaseMs, ...(command.commandTimeoutMs ? { commandTimeoutMs: command.commandTimeoutMs } : {}), logger: silent });
  client = new OmniMedia({ apiKey: 'sk-fleet', baseURL: command.baseURL, maxPollsPerSecond: command.maxPollsPerSecond, coordination, logger: silent, logLevel: 'warn' });
  const handler = client.callbacks.nodeHandler((task) => void send({ event: 'onTask', id: task.task_id, status: task.status, at: Date.now() }));
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  callbackURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
  close = async () => {
    server.closeAllConnections();
    server.close();
    await coordination.close();
    await quit();
  };
  return { callbackURL, instanceId: coordination.instanceId };
}

async function run(command: Command): Promise<unknown> {
  switch (command.type) {
    case 'init':
      return init(command);
    case 'submit': {
      const ids: string[] = [];
      for (let i = 0; i < command.count; i++) {
        const submission = await client!.images.generate({ model: 'omni-image', prompt: `fleet ${i}`, ...(command.withCallback ? { callback_url: callbackURL } : {}) });
        ids.push(submission.task_id);
      }
      return { ids };
    }
    case 'wait':
      for (const id of command.ids) {
        client!.tasks.wait(id, command.options).then(
          (task) => send({ event: 'resolved', id, status: task.status, at: Date.now() }),
          (error: unknown) => send({ event: 'rejected', id, error: String((error as Error)?.message ?? error), at: Date.now() }),
        );
      }
      return { started: command.ids.length };
    case 'pending':
      return { pending: (await client!.tasks.pending()).map((entry) => entry.task_id) };
    case 'close':
      await close?.();
      return { closed: true };
  }
}

process.on('message', (message: { id: number; command: Command }) => {
  run(message.command).then(
    (result) => send({ reply: message.id, result }),
    (error: unknown) => send({ reply: message.id, error: String((error as Error)?.stack ?? error) }),
  );
});
// The parent (a vitest worker) is gone, however it ended: so is this instance.
process.on('disconnect', () => process.exit(0));
send({ event: 'ready' });
