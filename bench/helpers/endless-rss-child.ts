// One measurement of bench/suites/hostile.ts, in a fresh process: read a task query that streams
// without end and report the peak RSS growth over the RSS just before.
// argv: <variant: retrieve | wait | fetch> <baseURL>
import { OmniMedia } from 'omnimedia';

const [variant, baseURL] = process.argv.slice(2) as ['retrieve' | 'wait' | 'fetch', string];
const client = new OmniMedia({ baseURL, logLevel: 'off', maxRetries: 0 });
// Warm up fetch before the baseline (a first query that fails fast).
await new OmniMedia({ baseURL: 'http://127.0.0.1:9', logLevel: 'off', maxRetries: 0 }).tasks.retrieve('warm').catch(() => {});
const before = process.memoryUsage.rss();
const maxBefore = process.resourceUsage().maxRSS * 1024;
let sampled = before;
const timer = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage.rss())), 1);
const t0 = performance.now();
let outcome: string;
try {
  if (variant === 'retrieve') await client.tasks.retrieve('task_1');
  else if (variant === 'wait') await client.tasks.wait('task_1', { timeout: 3_000 });
  else await (await fetch(`${baseURL}/v1/tasks/task_1`)).text();
  outcome = 'resolved';
} catch (error) {
  outcome = `${(error as Error).name}: ${(error as Error).message}`.slice(0, 120);
}
clearInterval(timer);
const maxAfter = process.resourceUsage().maxRSS * 1024;
const peak = Math.max(sampled, maxAfter > maxBefore ? maxAfter : 0);
process.send?.({ growthMiB: (peak - before) / 2 ** 20, ms: performance.now() - t0, outcome });
process.exit(0);
