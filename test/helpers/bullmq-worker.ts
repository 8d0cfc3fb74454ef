// One BullMQ worker process running `omniMediaProcessor`, for test/bullmq/ (on src/, through
// omnimedia-from-src.mjs) and bench/suites/batch.ts (on dist/, by the package's name): started
// with the Redis port, the mock's URL, the queue's name, the wait's timeout and the worker's
// concurrency (default 4) as arguments; says "ready" on stdout, then "settled <job id>" each time
// an attempt of its processor ends (returned or thrown), and runs until it is killed.
import { Worker } from 'bullmq';
import { OmniMedia } from 'omnimedia';
import { omniMediaProcessor } from 'omnimedia/bullmq';

const [port, baseURL, queue, waitTimeout, concurrency = '4'] = process.argv.slice(2);
const client = new OmniMedia({ apiKey: 'sk-mock', baseURL, logLevel: 'off' });
const processor = omniMediaProcessor(client, { wait: { timeout: Number(waitTimeout), initialDelay: 200, interval: 200 } });
const settled = (job: { id?: string | undefined }) => process.stdout.write(`settled ${job.id}\n`);
const worker = new Worker(queue as string, (job, token, signal) => processor(job, token, signal).finally(() => settled(job)), {
  connection: { host: '127.0.0.1', port: Number(port) },
  concurrency: Number(concurrency),
  // A worker that dies leaves its jobs to the others within about two seconds.
  lockDuration: 1_500,
  stalledInterval: 500,
  maxStalledCount: 5,
});
worker.on('error', () => {});
await worker.waitUntilReady();
process.stdout.write('ready\n');
