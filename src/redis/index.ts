/**
 * `omnimedia/redis`: fleet coordination on Redis, through your own client (node-redis >= 5 or
 * ioredis, an optional peer dependency). See the README, "Running on many instances".
 *
 * @module omnimedia/redis
 */
export { redisCoordination } from './coordination.ts';
export type { RedisCoordinationOptions } from '../options.ts';
export type { IoRedisLike, NodeRedisLike, RedisClientLike } from './driver.ts';
