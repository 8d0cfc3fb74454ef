// Where the proxy lives in an app: Express at the root (its other routes go on to `next`) or
// under a mount path (matched on the original URL), and the page's own origin recognised
// whatever form of its host the Host header takes.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy } from 'omnimedia/proxy';
import { KEY, SESSION, authorizeBySession, rawRequest, startProxy, startRecorder } from './helpers.ts';

const TASK = JSON.stringify({ task_id: 'task_1', status: 'pending' });

describe('mounted in Express', () => {
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    upstream = await startRecorder((_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(TASK));
    const atRoot = createProxy({ apiKey: KEY, baseURL: upstream.url, authorize: authorizeBySession });
    const underPath = createProxy({ apiKey: KEY, baseURL: upstream.url, basePath: '/api/omnimedia', authorize: authorizeBySession });
    const app = express();
    app.use('/api/omnimedia', underPath.nodeHandler);
    app.use(express.json());
    app.use(atRoot.nodeHandler);
    app.get('/health', (_req, res) => void res.send('ok'));
    app.post('/notes', (req, res) => void res.json({ got: req.body }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await upstream.close();
  });

  it('at the root it owns /v1/ only: the app\u2019s other routes go on to next()', async () => {
    expect(await (await fetch(`${url}/health`)).text()).toBe('ok');
    expect(await (await fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })).json()).toEqual({ got: { a: 1 } });
    expect((await fetch(`${url}/v1/tasks/task_1`, { headers: { cookie: SESSION } })).status).toBe(200);
    expect((await fetch(`${url}/v1/nothing`, { headers: { cookie: SESSION } })).status).toBe(404);
  });

  it('under a mount path it matches the original URL, and a JSON body express.json() read first is checked the same', async () => {
    expect((await fetch(`${url}/api/omnimedia/v1/tasks/task_1`, { headers: { cookie: SESSION } })).status).toBe(200);
    const parsedFirst = await fetch(`${url}/v1/images/generations`, { method: 'POST', headers: { cookie: SESSION, 'content-type': 'application/json' }, body: '{"model":"m","prompt":"p","callback_url":"http://evil"}' });
    expect(parsedFirst.status).toBe(200);
    expect(JSON.parse(upstream.requests.at(-1)!.body.toString())).toEqual({ model: 'm', prompt: 'p' });
    const invalid = await fetch(`${url}/v1/images/generations`, { method: 'POST', headers: { cookie: SESSION, 'content-type': 'application/json' }, body: '{"model":"m","prompt":""}' });
    expect(invalid.status).toBe(400);
  });
});

describe('the page\u2019s own origin, whatever form its host takes', () => {
  it('a Host header with the default port is the same host as the Origin without it', async () => {
    const upstream = await startRecorder((_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(TASK));
    const proxy = await startProxy({ upstream: upstream.url });
    try {
      const get = (host: string, origin: string) =>
        rawRequest(proxy.port, `GET /api/omnimedia/v1/tasks/task_1 HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nCookie: ${SESSION}\r\nConnection: close\r\n\r\n`);
      expect((await get('App.Example.com:80', 'http://app.example.com')).status).toBe(200);
      expect((await get('app.example.com', 'http://app.example.com:8080')).status).toBe(403);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it('handler: the URL\u2019s host chooses nothing (a framework\u2019s, such as Next.js\u2019s localhost)', async () => {
    const upstream = await startRecorder((_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(TASK));
    try {
      const proxy = createProxy({ apiKey: KEY, baseURL: upstream.url, authorize: () => ({ id: 'a' }) });
      const request = (host: string) => new Request('https://app.example.com/v1/tasks/task_1', { headers: { host } });
      expect((await proxy.handler(request('app.example.com:443'))).status).toBe(200);
      expect((await proxy.handler(request('elsewhere.example.com'))).status).toBe(200);
      expect(upstream.requests.map((r) => r.target)).toEqual(['/v1/tasks/task_1', '/v1/tasks/task_1']);
    } finally {
      await upstream.close();
    }
  });
});
