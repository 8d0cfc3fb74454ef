// The task service of the fleet bench, in its own process: image submissions whose tasks end at
// random times within MIN_MS..MAX_MS, task queries (each arrival logged), and the completion
// callback POSTed, when the task ends, to a random instance of the fleet: the submission's
// callback_url path and query (its token) on the origin of one of the instances given by
// POST /__instances. GET /__stats reports the queries and the deliveries.
import { peakInWindow } from '../lib/peak-window.ts';
import { serveToParent } from '../lib/serve-to-parent.ts';
import { createServer, request } from 'node:http';

const MIN_MS = Number(process.env.MIN_MS ?? 5_000);
const MAX_MS = Number(process.env.MAX_MS ?? 60_000);

interface Task {
  createdAt: number;
  doneAt: number;
  model: string;
}
const tasks = new Map<string, Task>();
const arrivals: number[] = [];
const deliveries: { id: string; to: number; at: number; status: number }[] = [];
let origins: string[] = [];
let seq = 0;

function result(id: string, task: Task): Record<string, unknown> {
  const created_at = Math.floor(task.createdAt / 1000);
  return {
    task_id: id,
    status: 'completed',
    model: task.model,
    operation: 'image_generation',
    media_type: 'image',
    created_at,
    completed_at: Math.floor(task.doneAt / 1000),
    elapsed_s: Math.round((task.doneAt - task.createdAt) / 1000),
    data: [{ url: `http://127.0.0.1/${id}.png` }],
  };
}

function deliver(id: string, task: Task, callbackPath: string): void {
  // A timer may fire a millisecond before `doneAt` by the wall clock (it counts whole ms of a
  // monotonic clock): a verifying handler's query would then find the task still processing,
  // answer 409, and the wait would end only at its next poll (seconds: the p99 of the verify
  // column was 2.4-4.0 s for that). The service sends a callback once its task has ended.
  const early = task.doneAt - Date.now();
  if (early > 0) return void setTimeout(() => deliver(id, task, callbackPath), Math.ceil(early)).unref();
  const to = Math.floor(Math.random() * origins.length);
  const body = JSON.stringify(result(id, task));
  const at = Date.now();
  const req = request(`${origins[to]}${callbackPath}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
    res.resume();
    deliveries.push({ id, to, at, status: res.statusCode ?? 0 });
  });
  req.on('error', () => deliveries.push({ id, to, at, status: 0 }));
  req.end(body);
}

const server = createServer((req, res) => {
  const now = Date.now();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const readBody = (then: (body: Record<string, unknown>) => void) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => then(JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>));
  };
  if (req.method === 'POST' && url.pathname === '/__instances') {
    return readBody((body) => {
      origins = body.origins as string[];
      json(200, { ok: true });
    });
  }
  if (req.method === 'POST' && url.pathname === '/v1/images/generations') {
    return readBody((body) => {
      const id = `task-${++seq}`;
      const task = { createdAt: now, doneAt: now + MIN_MS + Math.random() * (MAX_MS - MIN_MS), model: String(body.model) };
      tasks.set(id, task);
      if (typeof body.callback_url === 'string') {
        const callback = new URL(body.callback_url);
        setTimeout(() => deliver(id, task, `${callback.pathname}${callback.search}`), task.doneAt - now).unref();
      }
      json(200, { task_id: id, status: 'pending', model: task.model, created_at: Math.floor(now / 1000) });
    });
  }
  if (req.method === 'GET' && url.pathname.startsWith('/v1/tasks/')) {
    arrivals.push(now);
    const id = decodeURIComponent(url.pathname.slice('/v1/tasks/'.length));
    const task = tasks.get(id);
    if (task === undefined) return json(404, { error: 'no such task' });
    if (now < task.doneAt) return json(200, { task_id: id, status: 'processing', model: task.model, created_at: Math.floor(task.createdAt / 1000) });
    return json(200, result(id, task));
  }
  if (req.method === 'GET' && url.pathname === '/__stats') {
    return json(200, { queries: arrivals.length, peakSliding: peakInWindow(arrivals, 1_000), deliveries });
  }
  json(404, { error: 'not found' });
});

serveToParent(server);
