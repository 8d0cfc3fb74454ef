// One proxy process of a fleet for test/proxy/rate-limit.test.ts: its rate limits on the
// Redis at REDIS_URL (ioredis, as another app would), in front of UPSTREAM. Prints its port,
// runs until killed. Started with test/helpers/omnimedia-from-src.mjs, so it runs src/.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { createProxy } from 'omnimedia/proxy';
import { redisCoordination } from 'omnimedia/redis';

const redis = new Redis(process.env.REDIS_URL as string);
// COMMAND_TIMEOUT_MS: the test's 5 s, so that only a stalled Redis is an outage.
const coordination = redisCoordination(redis, { prefix: 'fleet:', ...(process.env.COMMAND_TIMEOUT_MS ? { commandTimeoutMs: Number(process.env.COMMAND_TIMEOUT_MS) } : {}) });
const proxy = createProxy({
  apiKey: 'sk-fleet',
  baseURL: process.env.UPSTREAM,
  basePath: '/api/omnimedia',
  authorize: (request) => ({ id: request.headers.get('x-user') ?? 'anonymous' }),
  rateLimit: { submissions: { limit: Number(process.env.LIMIT), windowMs: 60_000 } },
  coordination,
});
const server = createServer((req, res) => proxy.nodeHandler(req, res)).listen(0, '127.0.0.1', () => {
  console.log(`PORT=${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.close();
  void coordination.close().then(() => redis.disconnect());
});
