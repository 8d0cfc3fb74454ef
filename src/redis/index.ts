/**
 * `omnimedia/redis`: fleet coordination on Redis, through your own client (node-redis >= 5 or
 * ioredis >= 5, an optional peer dependency): a single connection or a cluster client
 * (`createCluster`, ioredis `Cluster`). See the guide
 * [Fleets on Redis and Redis Cluster](https://github.com/omnimedia/omnimedia/blob/main/docs/fleets.md).
 *
 * @module omnimedia/redis
 */
export { redisCoordination } from './coordination.ts';
export { redisBatchJournal, type RedisBatchJournalOptions } from './batch-journal.ts';
export type { RedisCoordinationOptions } from '../options.ts';
export type { IoRedisClusterLike, IoRedisLike, NodeRedisClusterLike, NodeRedisLike, RedisClientLike } from './driver.ts';
