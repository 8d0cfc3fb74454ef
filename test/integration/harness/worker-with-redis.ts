// Run by test/integration/harness.test.ts as a process of its own (a stand-in for a vitest
// worker): starts a RedisServer, prints its pid, and waits to be killed.
import { RedisServer } from '../../helpers/redis-server.ts';

const redis = new RedisServer();
await redis.start();
process.stdout.write(`REDIS_PID=${redis.pid}\n`);
setInterval(() => {}, 60_000);
