// One instance of a fleet serving pages, for bench/suites/live.ts: omnimedia/proxy and the
// server's OmniMedia with its callback handler (at /cb), the build, on one coordination on the
// Redis at argv[3], in front of the service at argv[2]. argv[4] 'callbacks': the proxy sends its
// own /cb as every submission's callback_url. Tells the parent its port; answers 'rss' with its
// resident set size after a GC.
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { OmniMedia } from 'omnimedia';
import { createProxy, type OmniMediaProxy } from 'omnimedia/proxy';
import { redisCoordination } from 'omnimedia/redis';

const [baseURL, redisURL, mode] = process.argv.slice(2);
const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };
const redis = new Redis(redisURL as string);
const coordination = redisCoordination(redis, { prefix: 'live:', logger: quiet });
// The fleet's callbackSecret: the proxy's callback URL carries its token (a task the journal does not know is refused without one).
const client = new OmniMedia({ apiKey: 'sk-bench', baseURL, coordination, callbackSecret: 'bench-callback-secret', logLevel: 'off' });
const callbacks = client.callbacks.nodeHandler(() => {});
let proxy: OmniMediaProxy | undefined;
const server = createServer((req, res) => (req.url?.startsWith('/cb?') ? callbacks(req, res) : proxy?.nodeHandler(req, res)));
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', async () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const callbackURL = await client.callbacks.url(`http://127.0.0.1:${port}/cb`);
  proxy = createProxy({
    apiKey: 'sk-bench',
    baseURL,
    basePath: '/api/omnimedia',
    authorize: (request) => ({ id: request.headers.get('x-user') ?? 'bench' }),
    coordination,
    events: { perIdentity: 5_000, perProcess: 5_000 },
    logger: quiet,
    ...(mode === 'callbacks' ? { callbackURL } : {}),
  });
  process.send?.({ port });
});
process.on('message', (message) => {
  if (message !== 'rss') return;
  globalThis.gc?.();
  process.send?.({ rss: process.memoryUsage.rss() });
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close();
  void coordination.close().then(() => {
    redis.disconnect();
    process.exit(0);
  });
});
