// A browser app's server, from the INSTALLED tarball: `omnimedia/proxy` mounted on node:http at
// /api/omnimedia (nodeHandler), in front of a mock service that accepts only the proxy's key,
// a /login that sets an HttpOnly session cookie, and the page (the bundle given as argv[2]).
// Prints `APP_URL=<url>` and `KEY=<key>` once listening; closes on SIGTERM. Run from the
// consumer project (run.sh does).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createProxy } from 'omnimedia/proxy';
import { startMockServer } from 'omnimedia/testing';
import { serveApp } from './app-server.mjs';

const KEY = `sk-chromium/${randomBytes(12).toString('hex')}`;
const SESSION = randomBytes(12).toString('hex');
const bundle = await readFile(process.argv[2], 'utf8');
const mock = await startMockServer({ apiKeys: [KEY], durations: { pending: 50, image: 300, imageEdit: 300, video: 500, videoEdit: 500 } });

const proxy = createProxy({
  apiKey: KEY,
  baseURL: mock.url,
  basePath: '/api/omnimedia',
  authorize: (request) => ((request.headers.get('cookie') ?? '').includes(`session=${SESSION}`) ? { id: 'chromium-user' } : null),
});

const server = createServer((req, res) => {
  if (req.url === '/login') {
    res.writeHead(302, { location: '/', 'set-cookie': `session=${SESSION}; Path=/; HttpOnly; SameSite=Lax` }).end();
  } else if (req.url === '/bundle.js') {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
  } else if (req.url === '/' || req.url === '/index.html') {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><title>app</title><script type="module" src="/bundle.js"></script>');
  } else if (req.url === '/favicon.ico') res.writeHead(204).end();
  else proxy.nodeHandler(req, res);
});
serveApp(server, mock, { KEY });
