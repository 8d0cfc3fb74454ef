// The server of the React page (react-page.mjs), from the INSTALLED tarball: `omnimedia/proxy`
// on node:http at /api/omnimedia in front of the mock service (videos of 6 s), and the page.
// `POST /cut` destroys every open event stream's connection, as a network or a deploy would.
// Prints APP_URL and MOCK_URL once listening; closes on SIGTERM. Run from the consumer project.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createProxy } from 'omnimedia/proxy';
import { startMockServer } from 'omnimedia/testing';
import { serveApp } from './app-server.mjs';

const bundle = await readFile(process.argv[2], 'utf8');
const mock = await startMockServer({ durations: { pending: 1_000, video: 5_000 } });
const proxy = createProxy({ apiKey: 'sk-react', baseURL: mock.url, basePath: '/api/omnimedia', authorize: () => ({ id: 'react-page' }) });
const streams = new Set();
let cuts = 0;

const server = createServer((req, res) => {
  if (req.url === '/bundle.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
  else if (req.url === '/' || req.url.startsWith('/?')) res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><title>react</title><div id="root"></div><script type="module" src="/bundle.js"></script>');
  else if (req.url === '/cut' && req.method === 'POST') {
    for (const socket of streams) socket.destroy();
    cuts += streams.size;
    streams.clear();
    res.writeHead(200).end(String(cuts));
  } else if (req.url === '/favicon.ico') res.writeHead(204).end();
  else {
    if (req.url.endsWith('/events')) {
      streams.add(req.socket);
      res.once('close', () => streams.delete(req.socket));
    }
    proxy.nodeHandler(req, res);
  }
});
serveApp(server, mock);
