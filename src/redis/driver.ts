/**
 * redis/: `omnimedia/redis`, the coordination ports on Redis, through the caller's own client
 * (node-redis >= 5 or ioredis). Imports coordination/, schemas/ (types), errors.ts and
 * internal/; the main entry never imports it, so it never loads a Redis client.
 */

import { ValidationError } from '../errors.ts';

/**
 * A connected node-redis client (v5 and later), by shape.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * const redis: NodeRedisLike = await createClient({ url: process.env.REDIS_URL }).connect();
 * ```
 */
export interface NodeRedisLike {
  /** One command, as words: what the coordination sends. */
  sendCommand(args: string[]): Promise<unknown>;
  /** A new connection like this one: the coordination's own, for pub/sub. */
  duplicate(): NodeRedisLike & {
    connect(): Promise<unknown>;
    subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
    destroy?(): void;
    disconnect?(): Promise<unknown>;
    on(event: 'error', listener: (error: unknown) => void): unknown;
  };
}

/**
 * An ioredis instance, by shape.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * const redis: IoRedisLike = new Redis(process.env.REDIS_URL);
 * ```
 */
export interface IoRedisLike {
  /** One command: what the coordination sends. */
  call(command: string, ...args: string[]): Promise<unknown>;
  /** A new connection like this one: the coordination's own, for pub/sub. */
  duplicate(): IoRedisLike & {
    subscribe(channel: string): Promise<unknown>;
    on(event: 'message', listener: (channel: string, message: string) => void): unknown;
    on(event: 'error', listener: (error: unknown) => void): unknown;
    disconnect(): void;
  };
}

/**
 * The caller's Redis client: node-redis (connected) or ioredis.
 *
 * @example
 * ```ts
 * const redis: RedisClientLike = await createClient({ url: process.env.REDIS_URL }).connect();
 * const coordination = redisCoordination(redis);
 * ```
 */
export type RedisClientLike = NodeRedisLike | IoRedisLike;

/** A pub/sub connection of the coordination's own. */
export interface Subscription {
  /** Settles when it listens, or rejects when it could not. */
  ready: Promise<void>;
  /** Close it now, connected or still connecting: nothing of it stays open. */
  close(): void;
}

/** What the coordination needs of a Redis client, whichever it is. */
export interface RedisDriver {
  /** One command, as words (`['SET', key, value, 'NX']`). */
  command(args: string[]): Promise<unknown>;
  /** Listen on `channel` over a connection of its own (a `duplicate()` of the caller's client). */
  subscribe(channel: string, onMessage: (message: string) => void): Subscription;
}

function isIoRedis(client: RedisClientLike): client is IoRedisLike {
  return typeof (client as Partial<IoRedisLike> | null)?.call === 'function';
}

/** The driver of a node-redis or ioredis client. Neither library is imported: the caller's is used. */
export function driverOf(client: RedisClientLike): RedisDriver {
  if (isIoRedis(client)) {
    return {
      command: ([name, ...args]) => client.call(name as string, ...args),
      subscribe(channel, onMessage) {
        const subscriber = client.duplicate();
        // A connection of our own must not crash the process when Redis goes away.
        subscriber.on('error', () => {});
        subscriber.on('message', (from, message) => from === channel && onMessage(message));
        return { ready: subscriber.subscribe(channel).then(() => {}), close: () => subscriber.disconnect() };
      },
    };
  }
  if (typeof (client as Partial<NodeRedisLike> | null)?.sendCommand !== 'function' || typeof (client as Partial<NodeRedisLike>).duplicate !== 'function')
    throw new ValidationError([{ path: 'redis', message: 'must be a connected node-redis client (await createClient().connect()) or an ioredis instance' }], 'redisCoordination');
  return {
    command: (args) => client.sendCommand(args),
    subscribe(channel, onMessage) {
      const subscriber = client.duplicate();
      subscriber.on('error', () => {});
      const ready = subscriber
        .connect()
        .then(() => subscriber.subscribe(channel, onMessage))
        .then(() => {});
      // destroy(), not close(): close() waits for the answers of every queued command.
      return {
        ready,
        close: () => {
          try {
            if (subscriber.destroy) subscriber.destroy();
            else void subscriber.disconnect?.().catch(() => {});
          } catch {
            // Already closed.
          }
        },
      };
    },
  };
}

/** A reply as a flat list of strings (HGETALL answers a list or, on node-redis, an object). */
export function replyList(reply: unknown): string[] {
  if (Array.isArray(reply)) return reply.map(String);
  if (reply && typeof reply === 'object') return Object.entries(reply).flat().map(String);
  return [];
}

/**
 * A value we stored as JSON, or `undefined` when it is not (absent, or written by something
 * else under our prefix): a stranger's value is a miss, never an outage or a thrown SyntaxError.
 */
export function storedJson<T extends object>(value: unknown): T | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed && typeof parsed === 'object' ? (parsed as T) : undefined;
  } catch {
    return undefined;
  }
}
