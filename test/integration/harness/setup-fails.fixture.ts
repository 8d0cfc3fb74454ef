// Run by test/integration/harness.test.ts in a vitest of its own (vitest.config.ts here):
// a file whose setup fails half-way, after its redis-server started and before its server was
// set, and whose teardown then throws before it stops the redis-server: as
// test/redis/fleet-node-redis-sharing.test.ts failed beside a busy machine (its teardown now
// runs every step; this one shows that even a teardown that does not leaves nothing running).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RedisServer } from '../../helpers/redis-server.ts';

describe('a setup that fails half-way', () => {
  const redis = new RedisServer();
  let server: { close(): Promise<void> } | undefined;
  beforeAll(async () => {
    await redis.start();
    console.log(`REDIS_PID=${redis.pid}`);
    throw new Error('setup failed half-way');
  });
  afterAll(async () => {
    await (server as { close(): Promise<void> }).close();
    await redis.stop();
  });
  it('never runs', () => {});
});
