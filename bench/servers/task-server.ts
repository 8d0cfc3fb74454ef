// A minimal task service for the wait-load bench, run in its own process (child_process.fork)
// so that its work does not share the event loop of the client under test. Each submitted
// task completes at a random time within DURATION_MS; every task query's arrival is logged.
import { createServer } from 'node:http';

const MAX_DURATION_MS = Number(process.env.DURATION_MS ?? 20_000);
const tasks = new Map<string, number>();
const arrivals: number[] = [];
let seq = 0;

function peakInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  for (let lo = 0, hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] as number) - (sorted[lo] as number) >= windowMs) lo++;
    peak = Math.max(peak, hi - lo + 1);
  }
  return peak;
}

function peakPerSecond(times: number[]): number {
  const buckets = new Map<number, number>();
  for (const t of times) buckets.set(Math.floor(t / 1000), (buckets.get(Math.floor(t / 1000)) ?? 0) + 1);
  return Math.max(0, ...buckets.values());
}

const server = createServer((req, res) => {
  const now = Date.now();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'POST' && url.pathname === '/v1/images/generations') {
    req.resume();
    req.on('end', () => {
      const id = `task-${++seq}`;
      tasks.set(id, now + Math.random() * MAX_DURATION_MS);
      json(200, { task_id: id, status: 'pending', model: 'omni-image', created_at: Math.floor(now / 1000) });
    });
    return;
  }
  if (req.method === 'GET' && url.pathname.startsWith('/v1/tasks/')) {
    arrivals.push(now);
    const id = decodeURIComponent(url.pathname.slice('/v1/tasks/'.length));
    const doneAt = tasks.get(id);
    if (doneAt === undefined) return json(404, { error: 'no such task' });
    if (now < doneAt) return json(200, { task_id: id, status: 'processing' });
    return json(200, { task_id: id, status: 'completed', elapsed_s: 5, done_at_ms: doneAt, data: [{ url: `http://localhost/${id}.png` }] });
  }
  if (req.method === 'GET' && url.pathname === '/__stats') {
    return json(200, {
      tasks: tasks.size,
      queries: arrivals.length,
      peakSliding: peakInWindow(arrivals, 1_000),
      peakPerSecond: peakPerSecond(arrivals),
    });
  }
  json(404, { error: 'not found' });
});

server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
