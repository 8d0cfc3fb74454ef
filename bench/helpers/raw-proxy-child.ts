// The floor for bench/suites/proxy.ts: a bare pass-through hop (node:http in, fetch out, the
// body copied back), no checks at all, so the table can tell what a hop costs on this machine
// from what the proxy's checks cost.
import { createServer } from 'node:http';
import { serveToParent } from '../lib/serve-to-parent.ts';

const upstream = process.argv[2];
serveToParent(
  createServer(async (req, res) => {
    const answer = await fetch(`${upstream}${(req.url ?? '/').replace('/api/omnimedia', '')}`);
    const bytes = new Uint8Array(await answer.arrayBuffer());
    res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': bytes.byteLength }).end(bytes);
  }),
);
