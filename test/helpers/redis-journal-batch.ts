// One process running `client.batch()` on a `redisBatchJournal`, for test/redis/: started with
// the Redis port, the mock's URL, the batch's name and how many jobs (`job-<i>`, prompt
// `p <i>`); prints each result line's id and status, then "done", or "error: <message>" and
// exits 1.
import { createClient } from 'redis';
import { OmniMedia } from 'omnimedia';
import { redisBatchJournal } from 'omnimedia/redis';

const [port, baseURL, name, count] = process.argv.slice(2);
const redis = createClient({ url: `redis://127.0.0.1:${port}` });
redis.on('error', () => {});
await redis.connect();
const client = new OmniMedia({ apiKey: 'sk-mock', baseURL, logLevel: 'off' });
const jobs = Array.from({ length: Number(count) }, (_, i) => ({ id: `job-${i}`, op: 'images.generate' as const, params: { model: 'omni-image', prompt: `p ${i}` } }));
try {
  for await (const line of client.batch(jobs, { journal: redisBatchJournal(redis, { name: String(name) }), concurrency: 2, wait: { initialDelay: 50, interval: 50 } }))
    process.stdout.write(`${line.id} ${line.status}\n`);
  process.stdout.write('done\n');
} catch (error) {
  process.stdout.write(`error: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await redis.quit();
}
