// A minimal task service for the wait-load bench, run in its own process (child_process.fork)
// so that its work does not share the event loop of the client under test. POST /__setup
// creates tasks that complete at random times within DURATION_MS; every task query's arrival
// is logged, and GET /__stats reports the peak rate.
import { peakInWindow } from '../lib/peak-window.ts';
import { serveToParent } from '../lib/serve-to-parent.ts';
import { createServer } from 'node:http';

const MAX_DURATION_MS = Number(process.env.DURATION_MS ?? 20_000);
const tasks = new Map<string, { createdAt: number; doneAt: number }>();
const arrivals: number[] = [];
let seq = 0;

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
  if (req.method === 'POST' && url.pathname === '/__setup') {
    // Tasks submitted "now", each completing at a random time within MAX_DURATION_MS.
    const count = Number(url.searchParams.get('tasks') ?? 0);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = `task-${++seq}`;
      tasks.set(id, { createdAt: now, doneAt: now + Math.random() * MAX_DURATION_MS });
      ids.push(id);
    }
    return json(200, { ids });
  }
  if (req.method === 'GET' && url.pathname.startsWith('/v1/tasks/')) {
    arrivals.push(now);
    const id = decodeURIComponent(url.pathname.slice('/v1/tasks/'.length));
    const task = tasks.get(id);
    if (task === undefined) return json(404, { error: 'no such task' });
    const created_at = Math.floor(task.createdAt / 1000);
    if (now < task.doneAt) return json(200, { task_id: id, status: 'processing', created_at });
    return json(200, {
      task_id: id,
      status: 'completed',
      created_at,
      elapsed_s: Math.round((task.doneAt - task.createdAt) / 1000),
      // Not in the spec: the exact end, so the bench can measure the detection lag.
      done_at_ms: task.doneAt,
      data: [{ url: `http://localhost/${id}.png` }],
    });
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

serveToParent(server);
