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
import { everyStep } from '../helpers/teardown.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The connection a client's duplicate() makes: it says when it reconnects. */
interface Reconnecting {
  once(event: 'reconnecting', listener: () => void): unknown;
}

/** A client of the kind under test, reconnecting every 50 ms, and how to close it. */
interface Made {
  client: { duplicate(): Reconnecting };
  close(): void;
}

const KINDS: Record<'node-redis' | 'ioredis', (url: string) => Promise<Made>> = {
  'node-redis': async (url) => {
    const client = createClient({ url, socket: { reconnectStrategy: () => 50 } });
    client.on('error', () => {});
    await client.connect();
    return { client: client as unknown as Made['client'], close: () => client.destroy() };
  },
  ioredis: async (url) => {
    const client = new Redis(url, { retryStrategy: () => 50 });
    client.on('error', () => {});
    return { client: client as unknown as Made['client'], close: () => client.disconnect() };
  },
};

describe.skipIf(!REDIS_AVAILABLE).each(Object.keys(KINDS) as (keyof typeof KINDS)[])('a subscription closed while its connection reconnects (%s)', (kind) => {
  const server = new RedisServer();
  let raw: Awaited<ReturnType<RedisServer['client']>>;

  beforeAll(async () => {
    await server.start();
    raw = await server.client();
  }, 30_000);
  afterAll(() => everyStep(() => raw?.destroy(), () => server.stop()));

  const subscribers = async () => ((await raw.sendCommand(['PUBSUB', 'NUMSUB', 'chan'])) as [string, number])[1];

  it('closed in the reconnect’s connect window, it hears nothing more and leaves no connection', async () => {
    const { client, close } = await KINDS[kind](server.url);
    // The duplicate the driver makes, caught to time the close inside its reconnect.
    let duplicate: Reconnecting | undefined;
    const spied = Object.assign(Object.create(client) as object, { duplicate: () => (duplicate = client.duplicate()) });
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
    close();
  });
});
