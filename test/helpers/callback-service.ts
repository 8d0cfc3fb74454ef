// A small stand-in for the service on loopback, enough for callback tests: it takes
// submissions, answers task queries from its own table, and POSTs real callbacks. (The full
// simulation is `omnimedia/testing`; this one lets a test decide exactly when a task ends.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServiceTask {
  task_id: string;
  status: string;
  model?: string;
  created_at?: number;
  completed_at?: number;
  data?: { url: string }[];
  [key: string]: unknown;
}

export interface CallbackService {
  baseURL: string;
  tasks: Map<string, ServiceTask>;
  /** Submission bodies received, in order. */
  submissions: { path: string; body: Record<string, unknown> }[];
  /** Task queries received (ids), in order. */
  queries: string[];
  /** Mark the task completed in the table. */
  complete(taskId: string): ServiceTask;
  /** POST the task (or `body`) to the callback_url given at submission; resolves with the receiver's answer. */
  deliver(taskId: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Complete and deliver this many ms after each submission (0: not automatically). */
  autoCompleteAfterMs: number;
  close(): Promise<void>;
}

export async function startCallbackService(): Promise<CallbackService> {
  const tasks = new Map<string, ServiceTask>();
  const callbackUrls = new Map<string, string>();
  const submissions: CallbackService['submissions'] = [];
  const queries: string[] = [];
  let next = 1;
  const timers = new Set<NodeJS.Timeout>();

  const service: CallbackService = {
    baseURL: '',
    tasks,
    submissions,
    queries,
    autoCompleteAfterMs: 0,
    complete(taskId) {
      const task = tasks.get(taskId);
      if (!task) throw new Error(`no task ${taskId}`);
      Object.assign(task, {
        status: 'completed',
        completed_at: 1_700_000_100,
        provider: 'p1',
        data: [{ url: `${service.baseURL}/files/${taskId}.png` }],
        attempt_count: 1,
        attempts: [{ attempt_no: 1, provider: 'p1', status: 'completed', elapsed_s: 3 }],
      });
      return task;
    },
    async deliver(taskId, body) {
      const url = callbackUrls.get(taskId);
      if (!url) throw new Error(`task ${taskId} has no callback_url`);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body ?? tasks.get(taskId)),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // keep the text
      }
      return { status: response.status, body: parsed };
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const query = /^\/v1\/tasks\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && query) {
        const id = decodeURIComponent(query[1]!);
        queries.push(id);
        const task = tasks.get(id);
        return task ? send(200, task) : send(404, { error: { message: 'task not found' } });
      }
      if (req.method === 'POST' && /^\/v1\/(images\/(generations|edits)|video\/(generate|edits))$/.test(path)) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        submissions.push({ path, body });
        const task: ServiceTask = { task_id: `task_${next++}`, status: 'pending', model: String(body.model), created_at: 1_700_000_000 };
        tasks.set(task.task_id, task);
        if (typeof body.callback_url === 'string') callbackUrls.set(task.task_id, body.callback_url);
        if (service.autoCompleteAfterMs > 0 && typeof body.callback_url === 'string') {
          const timer = setTimeout(() => {
            timers.delete(timer);
            service.complete(task.task_id);
            service.deliver(task.task_id).catch(() => {});
          }, service.autoCompleteAfterMs);
          timers.add(timer);
        }
        return send(path.startsWith('/v1/video') ? 202 : 200, { task_id: task.task_id, status: 'pending', model: task.model, created_at: task.created_at });
      }
      send(404, { error: { message: `no route ${req.method} ${path}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return service;
}

/** Add a task to the table directly (as if submitted elsewhere). */
export function addTask(service: CallbackService, task: ServiceTask): ServiceTask {
  service.tasks.set(task.task_id, task);
  return task;
}
