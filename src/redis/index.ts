/**
 * `omnimedia/redis`: fleet coordination on Redis, through your own client (node-redis >= 5 or
 * ioredis >= 5, an optional peer dependency): a single connection or a cluster client
 * (`createCluster`, ioredis `Cluster`). See the README, "Running on many instances" and
 * "Running on a Redis Cluster".
 *
 * @module omnimedia/redis
 */
export { redisCoordination } from './coordination.ts';
export type { RedisCoordinationOptions } from '../options.ts';
export type { IoRedisClusterLike, IoRedisLike, NodeRedisClusterLike, NodeRedisLike, RedisClientLike } from './driver.ts';
