// A stand-in for the service with fixed answers, run in its own process (child_process.fork)
// so that its work does not share the measuring process's event loop. It tells the parent
// its port over IPC, and exits when the parent disconnects.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const SUBMISSION = JSON.stringify({ task_id: 'task_bench_1', status: 'pending', model: 'omni-image', created_at: 1_700_000_000 });
const TASK = JSON.stringify({
  task_id: 'task_bench_1',
  status: 'completed',
  model: 'omni-image',
  operation: 'image_generation',
  media_type: 'image',
  provider: 'provider-a',
  elapsed_s: 12,
  total_elapsed_s: 12,
  created_at: 1_700_000_000,
  completed_at: 1_700_000_012,
  data: [{ url: 'https://files.example/out-1.png' }],
  total_cost: 4,
  attempt_count: 1,
  attempts: [{ attempt_no: 1, provider: 'provider-a', status: 'completed', elapsed_s: 12 }],
});

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    let body: string | undefined;
    if (req.method === 'POST' && req.url === '/v1/images/generations') body = SUBMISSION;
    else if (req.method === 'GET' && req.url?.startsWith('/v1/tasks/')) body = TASK;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body ?? '{}') });
    res.end(body ?? '{}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
