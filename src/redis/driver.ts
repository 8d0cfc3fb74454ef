/**
 * redis/: `omnimedia/redis`, the coordination ports on Redis, through the caller's own client
 * (node-redis >= 5 or ioredis >= 5, a single connection or a cluster client). Imports
 * coordination/, schemas/ (types), errors.ts and internal/; the main entry never imports it,
 * so it never loads a Redis client.
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
    on(event: 'ready', listener: () => void): unknown;
  };
}

/**
 * A connected node-redis cluster client (`createCluster(...)`, v5 and later), by shape.
 *
 * @example
 * ```ts
 * import { createCluster } from 'redis';
 * const redis: NodeRedisClusterLike = await createCluster({ rootNodes: [{ url: process.env.REDIS_URL }] }).connect();
 * ```
 */
export interface NodeRedisClusterLike {
  /** One command, routed to the master of `firstKey`'s slot (any node without a key). */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** The masters it knows: what tells a cluster client from a single connection. */
  readonly masters: readonly unknown[];
  /** The connection to the master of `key`'s slot (node-redis 6): where a journal write's `WAIT` goes. */
  getNodeClientForKey?(key: string): Promise<{ sendCommand(args: string[]): Promise<unknown> }>;
  /** A new cluster client like this one: the coordination's own, for sharded pub/sub. */
  duplicate(overrides?: { minimizeConnections?: boolean }): NodeRedisClusterLike & {
    connect(): Promise<unknown>;
    subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
    sSubscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
    destroy(): void;
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
 * An ioredis `Cluster` (v5 and later), by shape.
 *
 * @example
 * ```ts
 * import { Cluster } from 'ioredis';
 * const redis: IoRedisClusterLike = new Cluster([{ host: '10.0.0.1', port: 6379 }]);
 * ```
 */
export interface IoRedisClusterLike {
  /** `true` on a `Cluster`: what tells it from a single connection. */
  readonly isCluster: boolean;
  /** One command, routed by its keys: what the coordination sends. */
  call(command: string, ...args: string[]): Promise<unknown>;
  /** Commands sent together to the node of their keys' slot: a journal write and its `WAIT`. */
  pipeline(): { call(command: string, ...args: string[]): unknown; exec(): Promise<unknown> };
  /** A new `Cluster` like this one: the coordination's own, for (sharded) pub/sub. */
  duplicate(startupNodes?: never[], options?: { shardedSubscribers?: boolean }): IoRedisClusterLike & {
    subscribe(channel: string): Promise<unknown>;
    ssubscribe(channel: string): Promise<unknown>;
    on(event: 'message' | 'smessage', listener: (channel: string, message: string) => void): unknown;
    on(event: 'error', listener: (error: unknown) => void): unknown;
    disconnect(): void;
  };
}

/**
 * The caller's Redis client: node-redis (connected) or ioredis, a single connection or a
 * cluster client (told apart by the client itself).
 *
 * @example
 * ```ts
 * const redis: RedisClientLike = await createClient({ url: process.env.REDIS_URL }).connect();
 * const coordination = redisCoordination(redis);
 * ```
 */
export type RedisClientLike = NodeRedisLike | NodeRedisClusterLike | IoRedisLike | IoRedisClusterLike;

/** A pub/sub connection of the coordination's own. */
export interface Subscription {
  /** Settles when it listens, or rejects when it could not. */
  ready: Promise<void>;
  /** Close it now, connected or still connecting: nothing of it stays open. */
  close(): void;
}

/** What the coordination needs of a Redis client, whichever it is. */
export interface RedisDriver {
  /** A cluster client (keys are routed by slot; pub/sub may be sharded). */
  readonly cluster: boolean;
  /** One command, as words (`['SET', key, value, 'NX']`), to the master of its first key. */
  command(args: string[]): Promise<unknown>;
  /**
   * A write, then `WAIT replicas timeoutMs` on the same connection: the write's answer and how
   * many replicas have it.
   */
  replicated(args: string[], replicas: number, timeoutMs: number): Promise<[unknown, number]>;
  /** Listen on `channel` (`sharded`: SSUBSCRIBE) over a connection of its own (a `duplicate()` of the caller's client). */
  subscribe(channel: string, sharded: boolean, onMessage: (message: string) => void): Subscription;
  /**
   * A new client like the caller's, with a slot map of its own (clusters only): for a caller's
   * client that did not see a failover. `ready` once connected; `close` closes it, connected
   * or not (a connection made while the cluster fails over may never settle).
   */
  fresh?(): { ready: Promise<RedisDriver>; close(): void };
}

const KEYLESS = new Set(['PING', 'TIME', 'INFO', 'CLUSTER', 'COMMAND', 'WAIT']);

/** The key a command is routed by on a cluster: EVAL's first key, else its first argument. */
function routeKey(args: string[]): string | undefined {
  const name = (args[0] ?? '').toUpperCase();
  if (KEYLESS.has(name)) return undefined;
  if (name === 'EVAL' || name === 'EVALSHA') return Number(args[2]) > 0 ? args[3] : undefined;
  return args[1];
}

const ignore = () => {};

function isIoRedisCluster(client: RedisClientLike): client is IoRedisClusterLike {
  return (client as Partial<IoRedisClusterLike>).isCluster === true && typeof (client as Partial<IoRedisClusterLike>).call === 'function';
}

function isIoRedis(client: RedisClientLike): client is IoRedisLike {
  return typeof (client as Partial<IoRedisLike> | null)?.call === 'function';
}

function isNodeRedisCluster(client: RedisClientLike): client is NodeRedisClusterLike {
  return typeof (client as Partial<NodeRedisClusterLike>).sendCommand === 'function' && 'masters' in client;
}

/** The driver of the caller's client. Neither library is imported: the caller's is used. */
export function driverOf(client: RedisClientLike): RedisDriver {
  if (client && isIoRedisCluster(client)) return ioRedisClusterDriver(client);
  if (client && isIoRedis(client)) return ioRedisDriver(client);
  if (client && typeof (client as Partial<NodeRedisLike>).duplicate === 'function' && isNodeRedisCluster(client)) return nodeRedisClusterDriver(client);
  if (typeof (client as Partial<NodeRedisLike> | null)?.sendCommand !== 'function' || typeof (client as Partial<NodeRedisLike>).duplicate !== 'function')
    throw new ValidationError(
      [{ path: 'redis', message: 'must be a connected node-redis client (await createClient().connect() or createCluster()) or an ioredis instance (Redis or Cluster)' }],
      'redisCoordination',
    );
  return nodeRedisDriver(client as NodeRedisLike);
}

function ioRedisDriver(client: IoRedisLike): RedisDriver {
  return {
    cluster: false,
    command: ([name, ...args]) => client.call(name as string, ...args),
    replicated: async ([name, ...args]) => [await client.call(name as string, ...args), 0],
    subscribe(channel, _sharded, onMessage) {
      const subscriber = client.duplicate();
      // A connection of our own must not crash the process when Redis goes away.
      subscriber.on('error', ignore);
      subscriber.on('message', (from, message) => from === channel && onMessage(message));
      return { ready: subscriber.subscribe(channel).then(() => {}), close: () => subscriber.disconnect() };
    },
  };
}

function ioRedisClusterDriver(client: IoRedisClusterLike): RedisDriver {
  return {
    cluster: true,
    command: ([name, ...args]) => client.call(name as string, ...args),
    async replicated([name, ...args], replicas, timeoutMs) {
      // One pipeline goes to the node of its keys' slot, on one connection: WAIT counts the write.
      const pipeline = client.pipeline();
      pipeline.call(name as string, ...args);
      pipeline.call('WAIT', String(replicas), String(timeoutMs));
      const [[writeError, written] = [], [, acked] = []] = ((await pipeline.exec()) ?? []) as [unknown, unknown][];
      if (writeError) throw writeError;
      return [written, Number(acked ?? 0)];
    },
    subscribe(channel, sharded, onMessage) {
      // A Cluster's own subscriber connection goes to any node, which SSUBSCRIBE refuses
      // (MOVED); `shardedSubscribers` makes it follow the channel's slot, through failovers.
      const subscriber = sharded ? client.duplicate([], { shardedSubscribers: true }) : client.duplicate();
      subscriber.on('error', ignore);
      subscriber.on(sharded ? 'smessage' : 'message', (from, message) => from === channel && onMessage(message));
      const ready = (sharded ? subscriber.ssubscribe(channel) : subscriber.subscribe(channel)).then(() => {});
      return { ready, close: () => subscriber.disconnect() };
    },
    fresh() {
      const other = client.duplicate();
      other.on('error', ignore);
      return { ready: Promise.resolve(ioRedisClusterDriver(other)), close: () => other.disconnect() };
    },
  };
}

function nodeRedisDriver(client: NodeRedisLike): RedisDriver {
  return {
    cluster: false,
    command: (args) => client.sendCommand(args),
    replicated: async (args) => [await client.sendCommand(args), 0],
    subscribe(channel, _sharded, onMessage) {
      const subscriber = client.duplicate();
      subscriber.on('error', ignore);
      let closed = false;
      // destroy(), not close(): close() waits for the answers of every queued command.
      const close = () => {
        closed = true;
        try {
          if (subscriber.destroy) subscriber.destroy();
          else void subscriber.disconnect?.().catch(ignore);
        } catch {
          // Already closed.
        }
      };
      // A close that comes while the client reconnects by itself, between its new socket and
      // that socket's 'connect', destroys nothing (node-redis 6: the socket is not the client's
      // yet): the connection then comes up and subscribes again. Closed is closed: such a
      // connection is destroyed as it comes up, and what it hears meanwhile is dropped.
      subscriber.on('ready', () => closed && close());
      const ready = subscriber
        .connect()
        .then(() => subscriber.subscribe(channel, (message) => closed || onMessage(message)))
        .then(() => {});
      return { ready, close };
    },
  };
}

function nodeRedisClusterDriver(client: NodeRedisClusterLike): RedisDriver {
  const send = (args: string[]) => client.sendCommand(routeKey(args), false, args);
  return {
    cluster: true,
    command: send,
    async replicated(args, replicas, timeoutMs) {
      const key = routeKey(args);
      const wait = ['WAIT', String(replicas), String(timeoutMs)];
      // The write through the cluster (redirects followed), then WAIT on the connection it went
      // by: node-redis 6 sends a WAIT given to the cluster to every master (its request policy).
      const written = await send(args);
      const node = key !== undefined && client.getNodeClientForKey ? await client.getNodeClientForKey(key) : undefined;
      return [written, Number(await (node ? node.sendCommand(wait) : client.sendCommand(key, false, wait)))];
    },
    subscribe(channel, sharded, onMessage) {
      // A cluster client of our own that connects only where it must (the channel's shard).
      const subscriber = client.duplicate({ minimizeConnections: true });
      subscriber.on('error', ignore);
      let closed = false;
      // As for one connection: closed is closed, whatever the client reconnects by itself.
      const listener = (message: string) => closed || onMessage(message);
      const ready = subscriber
        .connect()
        .then(() => (sharded ? subscriber.sSubscribe(channel, listener) : subscriber.subscribe(channel, listener)))
        .then(() => {});
      return {
        ready,
        close: () => {
          closed = true;
          closeQuietly(subscriber);
        },
      };
    },
    fresh() {
      const other = client.duplicate();
      other.on('error', ignore);
      return { ready: other.connect().then(() => nodeRedisClusterDriver(other)), close: () => closeQuietly(other) };
    },
  };
}

function closeQuietly(client: { destroy(): void }): void {
  try {
    client.destroy();
  } catch {
    // Already closed.
  }
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
