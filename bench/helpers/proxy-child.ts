// The proxy under bench (bench/suites/proxy.ts) in its own process: omnimedia/proxy (the build)
// on node:http in front of the upstream given as argv[2]. Tells the parent its port over IPC;
// on 'mark' starts watching its RSS, on 'report' sends the peak growth since the mark.
import { createServer } from 'node:http';
import { createProxy } from 'omnimedia/proxy';
import { serveToParent } from '../lib/serve-to-parent.ts';

const proxy = createProxy({
  apiKey: 'sk-bench-0000',
  baseURL: process.argv[2],
  basePath: '/api/omnimedia',
  authorize: async (request) => (request.headers.get('cookie') === 'session=bench' ? { id: 'bench' } : null),
  logger: { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} },
});
serveToParent(createServer((req, res) => proxy.nodeHandler(req, res)));

let before = 0;
let peak = 0;
let maxBefore = 0;
let timer: ReturnType<typeof setInterval> | undefined;
process.on('message', (message) => {
  if (message === 'mark') {
    globalThis.gc?.();
    before = process.memoryUsage.rss();
    maxBefore = process.resourceUsage().maxRSS * 1024;
    peak = before;
    timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 1);
  } else if (message === 'report') {
    clearInterval(timer);
    const maxAfter = process.resourceUsage().maxRSS * 1024;
    // maxRSS is the lifetime peak: it counts only if the upload raised it; else the sampled peak.
    process.send?.({ growthMiB: (Math.max(peak, maxAfter > maxBefore ? maxAfter : 0) - before) / 2 ** 20 });
  }
});
