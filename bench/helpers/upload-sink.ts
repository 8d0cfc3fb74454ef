// A loopback upload endpoint in its own process, for bench/suites/upload-memory.ts: it reads
// and discards each body and answers like the service's video upload endpoint.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  let bytes = 0;
  req.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
  req.on('end', () => {
    const now = Math.floor(Date.now() / 1000);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ upload_id: `up_${bytes}`, url: 'http://127.0.0.1/x', bytes, created_at: now, expires_at: now + 86_400 }));
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('message', (message) => {
  if (message === 'stop') server.close(() => process.exit(0));
});
