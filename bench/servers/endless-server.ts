// A hostile task query for bench/suites/hostile.ts, in its own process so that its memory does
// not count: GET /v1/tasks/:id answers 200 and streams `limit` bytes of JSON-ish text as fast
// as the socket takes them. Reports its port, then how many bytes each response sent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const limit = Number(process.argv[2] ?? 2 ** 30);
const chunk = new TextEncoder().encode('0,'.repeat(32 * 1024));
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  let sent = 0;
  const pump = () => {
    while (sent < limit && !res.destroyed) {
      sent += chunk.byteLength;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end(']');
  };
  res.on('close', () => process.send?.({ sent }));
  res.write('[');
  pump();
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('message', (m) => m === 'stop' && server.close(() => process.exit(0)));
