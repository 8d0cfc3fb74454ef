// Callback receiving cost: parseCallback against a bare JSON.parse, and a nodeHandler behind
// Node http against a bare handler that only JSON.parses, over loopback in this process.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OmniMedia, parseCallback } from 'omnimedia';
import type { BenchTable } from '../run.ts';

const sample = {
  task_id: 'task_0123456789',
  status: 'completed',
  model: 'omni-image',
  operation: 'image_generation',
  media_type: 'image',
  provider: 'p2',
  elapsed_s: 12,
  total_elapsed_s: 40,
  created_at: 1_700_000_000,
  completed_at: 1_700_000_040,
  data: [{ url: 'https://files.example/a.png' }, { url: 'https://files.example/b.png' }],
  total_cost: 3,
  attempt_count: 2,
  attempts: [
    { attempt_no: 1, provider: 'p1', status: 'failed', fail_reason: 'provider_timeout', elapsed_s: 28 },
    { attempt_no: 2, provider: 'p2', status: 'completed', elapsed_s: 12 },
  ],
};

async function perOp(n: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(n, 200); i++) await fn(); // warm up
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return ((performance.now() - start) * 1000) / n; // µs
}

async function listen(handler: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`, server };
}

export default async (): Promise<BenchTable[]> => {
  const small = JSON.stringify(sample);
  const large = JSON.stringify({ ...sample, data: Array.from({ length: 2000 }, (_, i) => ({ url: `https://files.example/${i}.png` })) });
  const rows: (string | number)[][] = [];
  for (const [name, text, n] of [
    ['spec sample', small, 20_000],
    ['2,000 outputs', large, 300],
  ] as const) {
    const bytes = new TextEncoder().encode(text);
    const bare = await perOp(n, () => JSON.parse(text));
    const fromText = await perOp(n, () => parseCallback(text));
    const fromBytes = await perOp(n, () => parseCallback(bytes));
    rows.push([name, `${(bytes.byteLength / 1024).toFixed(1)} KiB`, bare.toFixed(1), fromText.toFixed(1), fromBytes.toFixed(1), (fromText / bare).toFixed(1)]);
  }

  // Handler over loopback, verify off (no service here): what the handler adds to a request.
  const client = new OmniMedia({ baseURL: 'http://127.0.0.1:9', logLevel: 'off' });
  // A task this client submitted, as its journal knows it: what a handler delivers (another's is a 403).
  client.journal.record({ task_id: sample.task_id, kind: 'image_generation', submitted_at: Date.now() });
  const handler = client.callbacks.nodeHandler(() => {}, { verify: false, dedupe: false });
  const ours = await listen(handler as RequestListener);
  const bare = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  const post = (url: string) => async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: small });
    await response.text();
  };
  const N = 2_000;
  const bareHttp = await perOp(N, post(bare.url));
  const ourHttp = await perOp(N, post(ours.url));
  for (const s of [ours.server, bare.server]) {
    s.closeAllConnections();
    s.close();
  }

  return [
    {
      title: 'parseCallback (µs per body, lower is better)',
      columns: ['body', 'size', 'JSON.parse', 'parseCallback(string)', 'parseCallback(bytes)', 'ratio'],
      rows,
      notes: ['parseCallback = size check + strict UTF-8 + JSON.parse + plain-data copy + schema validation.'],
    },
    {
      title: `Callback handler over loopback (µs per delivery, ${N.toLocaleString('en-US')} sequential POSTs)`,
      columns: ['receiver', 'µs per delivery'],
      rows: [
        ['Node http + JSON.parse only', bareHttp.toFixed(0)],
        ['client.callbacks.nodeHandler (verify off, dedupe off)', ourHttp.toFixed(0)],
      ],
      notes: ['With verify on, each delivery adds one GET /v1/tasks/{id} to the service.'],
    },
  ];
};
