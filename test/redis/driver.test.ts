// The driver's pub/sub connection, on a real redis-server: one closed is closed for good, even
// when the close comes while the client reconnects by itself. node-redis 6 has a window there:
// `destroy()` called between a reconnect's socket creation and its 'connect' event destroys
// nothing (the socket is not the client's yet), and the connection then comes up, subscribes
// again and delivers every message a second time beside the subscription that replaced it
// (test/redis/coordination.test.ts "Redis gone and back" heard ['failed', 'failed'], once).
import { createClient } from 'redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverOf, type RedisClientLike } from '../../src/redis/driver.ts';
import { REDIS_AVAILABLE, RedisServer } from '../helpers/redis-server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!REDIS_AVAILABLE)('a subscription closed while its connection reconnects', () => {
  const server = new RedisServer();
  let raw: ReturnType<typeof createClient>;

  beforeAll(async () => {
    await server.start();
    raw = createClient({ url: server.url });
    raw.on('error', () => {});
    await raw.connect();
  }, 30_000);
  afterAll(async () => {
    raw.destroy();
    await server.stop();
  });

  const subscribers = async () => ((await raw.sendCommand(['PUBSUB', 'NUMSUB', 'chan'])) as [string, number])[1];

  it('node-redis: closed in the reconnect’s connect window, it hears nothing more and leaves no connection', async () => {
    const client = createClient({ url: server.url, socket: { reconnectStrategy: () => 50 } });
    client.on('error', () => {});
    await client.connect();
    // The duplicate the driver makes, caught to time the close inside its reconnect.
    let duplicate: ReturnType<typeof client.duplicate> | undefined;
    const spied = Object.assign(Object.create(client) as typeof client, {
      duplicate: () => (duplicate = client.duplicate()),
    });
    const heard: string[] = [];
    const subscription = driverOf(spied as unknown as RedisClientLike).subscribe('chan', false, (message) => heard.push(message));
    await subscription.ready;
    expect(await subscribers()).toBe(1);
    const closed = new Promise<void>((resolve) =>
      duplicate?.once('reconnecting', () =>
        // After the reconnect made its socket, before the socket connects.
        queueMicrotask(() => {
          subscription.close();
          resolve();
        }),
      ),
    );
    await raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    await closed;
    await sleep(300);
    await raw.publish('chan', 'after close');
    await sleep(100);
    expect(heard).toEqual([]);
    expect(await subscribers()).toBe(0);
    client.destroy();
  });

  it('ioredis: the same', async () => {
    const client = new Redis(server.url, { retryStrategy: () => 50 });
    client.on('error', () => {});
    let duplicate: Redis | undefined;
    const spied = Object.assign(Object.create(client) as Redis, { duplicate: () => (duplicate = client.duplicate()) });
    const heard: string[] = [];
    const subscription = driverOf(spied as unknown as RedisClientLike).subscribe('chan', false, (message) => heard.push(message));
    await subscription.ready;
    const closed = new Promise<void>((resolve) =>
      duplicate?.once('reconnecting', () =>
        queueMicrotask(() => {
          subscription.close();
          resolve();
        }),
      ),
    );
    await raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    await closed;
    await sleep(300);
    await raw.publish('chan', 'after close');
    await sleep(100);
    expect(heard).toEqual([]);
    expect(await subscribers()).toBe(0);
    client.disconnect();
  });
});
