// One BullMQ worker on the built package (dist/, by the package's own name) for bench/suites/
// batch.ts: argv = redis port, the mock's URL, the queue's name. Says "ready", runs until killed.
import { Worker } from 'bullmq';
import { OmniMedia } from 'omnimedia';
import { omniMediaProcessor } from 'omnimedia/bullmq';

const [port, baseURL, queue] = process.argv.slice(2);
const client = new OmniMedia({ apiKey: 'sk-bench', baseURL, logLevel: 'off' });
const worker = new Worker(queue as string, omniMediaProcessor(client), {
  connection: { host: '127.0.0.1', port: Number(port) },
  concurrency: 50,
  lockDuration: 2_000,
  stalledInterval: 1_000,
  maxStalledCount: 5,
});
worker.on('error', () => {});
await worker.waitUntilReady();
process.stdout.write('ready\n');
