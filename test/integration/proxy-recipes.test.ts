// The proxy as the README mounts it, attacked there: Express (`app.use(proxy.nodeHandler)`
// after `express.json()`, and under a mount path) and Hono (`app.all(..., (c) =>
// proxy.handler(c.req.raw))`), on real servers, over raw sockets. What the frameworks route,
// parse or normalise first must not open what the proxy alone keeps shut.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProxy } from 'omnimedia/proxy';
import { KEY, SESSION, authorizeBySession, rawRequest, startRecorder } from '../proxy/helpers.ts';

const TASK = JSON.stringify({ task_id: 'task_1', status: 'pending', model: 'm', created_at: 1 });

let upstream: Awaited<ReturnType<typeof startRecorder>>;
let elsewhere: Awaited<ReturnType<typeof startRecorder>>;
const servers: Record<string, Server> = {};
const port = (name: string) => (servers[name]!.address() as AddressInfo).port;

beforeAll(async () => {
  upstream = await startRecorder((_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(TASK));
  elsewhere = await startRecorder();
  const proxy = () => createProxy({ apiKey: KEY, baseURL: upstream.url, basePath: '/api/omnimedia', authorize: authorizeBySession, logger: { error() {}, warn() {}, info() {}, debug() {} } });

  const atRoot = express();
  atRoot.use(express.json());
  atRoot.use(proxy().nodeHandler);
  atRoot.use((_req, res) => void res.status(404).send('the app\u2019s own 404'));
  const mounted = express();
  mounted.use('/api/omnimedia', proxy().nodeHandler);
  const hono = new Hono();
  const forHono = proxy();
  hono.all('/api/omnimedia/*', (c) => forHono.handler(c.req.raw));

  servers.express = atRoot.listen(0, '127.0.0.1');
  servers['express (mount path)'] = mounted.listen(0, '127.0.0.1');
  servers.hono = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }) as Server;
  await Promise.all(Object.values(servers).map((server) => (server.listening ? undefined : new Promise((resolve) => server.once('listening', resolve)))));
});
afterEach(() => {
  upstream.requests.length = 0;
});
afterAll(async () => {
  for (const server of Object.values(servers)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await upstream.close();
  await elsewhere.close();
});

const E = () => `127.0.0.1:${elsewhere.port}`;
const ATTACKS: [string, (p: number) => string][] = [
  ['a path named after an Object member', () => 'POST /api/omnimedia/constructor HTTP/1.1'],
  ['encoded dot segments', () => 'GET /api/omnimedia/v1/tasks/%2e%2e/%2e%2e/admin HTTP/1.1'],
  ['an encoded slash in a task id', () => 'GET /api/omnimedia/v1/tasks/a%2Fb HTTP/1.1'],
  ['a fullwidth slash in a task id', () => 'GET /api/omnimedia/v1/tasks/a%EF%BC%8Fb HTTP/1.1'],
  ['a double slash after the base path', () => 'GET /api/omnimedia//v1/tasks/x HTTP/1.1'],
  ['a ;param on an endpoint', () => 'POST /api/omnimedia/v1/images/generations;x=1 HTTP/1.1'],
  ['a query string', () => `GET /api/omnimedia/v1/tasks/x?url=http://${E()}/ HTTP/1.1`],
  ['an absolute-form target to elsewhere', () => `GET http://${E()}/api/omnimedia/v1/tasks/x HTTP/1.1`],
  ['the upper-case version', () => 'GET /api/omnimedia/V1/tasks/x HTTP/1.1'],
  ['TRACE', () => 'TRACE /api/omnimedia/v1/tasks/x HTTP/1.1'],
  ['a method override header', () => 'POST /api/omnimedia/v1/tasks/x HTTP/1.1\r\nX-HTTP-Method-Override: GET\r\nX-Method-Override: GET'],
];

// `handler` reads only the path of the URL its runtime made (the host and query may be the
// framework's: Next.js names localhost, its edge runtime adds a query): there these go to the
// configured service as the endpoint alone, never elsewhere (test/proxy/routes.test.ts).
const READ_PAST_BY_HANDLER = ['a query string', 'an absolute-form target to elsewhere'];

describe.each(['express', 'express (mount path)', 'hono'])('mounted as the README does, in %s', (name) => {
  it.each(ATTACKS.filter(([attack]) => name !== 'hono' || !READ_PAST_BY_HANDLER.includes(attack)))('%s: a 4xx, nothing reaches the service or elsewhere', async (_attack, line) => {
    const answer = await rawRequest(port(name), `${line(port(name))}\r\nHost: 127.0.0.1:${port(name)}\r\nCookie: ${SESSION}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(answer.status, answer.raw.slice(0, 200)).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(upstream.requests).toEqual([]);
    expect(elsewhere.requests).toEqual([]);
  });

  it('a cross-site submission is 403 before the app sees a cookie; a same-origin one goes, its callback_url spellings dropped', async () => {
    const body = '{"model":"m","prompt":"p","Callback_URL":"http://169.254.169.254/"}';
    const post = (origin: string) =>
      rawRequest(port(name), `POST /api/omnimedia/v1/images/generations HTTP/1.1\r\nHost: 127.0.0.1:${port(name)}\r\nOrigin: ${origin}\r\nCookie: ${SESSION}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect((await post('https://evil.example')).status).toBe(403);
    expect(upstream.requests).toEqual([]);
    const answer = await post(`http://127.0.0.1:${port(name)}`);
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(upstream.requests[0]!.body.toString())).toEqual({ model: 'm', prompt: 'p' });
  });
});
