// One instance of a fleet serving pages, for test/proxy/events-fleet.test.ts and the live bench:
// omnimedia/proxy and the server's own OmniMedia with its callback handler (at /cb), both on one
// coordination on the Redis at REDIS_URL, in front of UPSTREAM. With CALLBACKS=1 the proxy sends
// its own /cb as every submission's callback_url. Prints its port; runs until SIGTERM. Started
// with test/helpers/omnimedia-from-src.mjs, so it runs src/.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { OmniMedia } from 'omnimedia';
import { createProxy, type OmniMediaProxy } from 'omnimedia/proxy';
import { redisCoordination } from 'omnimedia/redis';

const quiet = { error: (m: string) => console.error(m), warn() {}, info() {}, debug() {} };
const redis = new Redis(process.env.REDIS_URL as string);
// COMMAND_TIMEOUT_MS: the tests' 5 s, so that only a stalled Redis is an outage. On a starved
// machine the event loop runs a due timer before the socket's answer that came in time (a
// 500 ms timeout at a load of 25: B's lease claim "timed out", B read the task itself).
const commandTimeoutMs = Number(process.env.COMMAND_TIMEOUT_MS) || undefined;
const coordination = redisCoordination(redis, { prefix: process.env.PREFIX ?? 'live:', logger: quiet, ...(commandTimeoutMs ? { commandTimeoutMs } : {}) });
// One callbackSecret for the fleet: the proxy's callback URL carries its token, so the handler takes
// deliveries of the proxy's tasks (its journal does not know them: without a token they are refused).
const client = new OmniMedia({ apiKey: 'sk-fleet', baseURL: process.env.UPSTREAM, coordination, callbackSecret: 'fleet-callback-secret', logLevel: 'error' });
const callbacks = client.callbacks.nodeHandler(() => {});
let proxy: OmniMediaProxy | undefined;
const server = createServer((req, res) => (req.url?.startsWith('/cb?') ? callbacks(req, res) : proxy?.nodeHandler(req, res)));
server.listen(0, '127.0.0.1', async () => {
  const port = (server.address() as AddressInfo).port;
  const callbackURL = await client.callbacks.url(`http://127.0.0.1:${port}/cb`);
  proxy = createProxy({
    apiKey: 'sk-fleet',
    baseURL: process.env.UPSTREAM,
    basePath: '/api/omnimedia',
    authorize: (request) => ({ id: request.headers.get('x-user') ?? 'anonymous' }),
    coordination,
    events: { perIdentity: 1_000, perProcess: 5_000 },
    logger: quiet,
    ...(process.env.CALLBACKS === '1' ? { callbackURL } : {}),
  });
  console.log(`PORT=${port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void coordination.close().then(() => redis.disconnect());
});
