// "Not a relay": over raw sockets, every trick that could make the proxy send something other
// than one of the seven endpoints to the configured service. Each gets a 4xx; the "elsewhere"
// server on loopback receives nothing, and the service only ever sees the spec's paths.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { KEY, SESSION, rawGet, rawPost, rawRequest, startProxy, startRecorder, type Mode, type RunningProxy } from './helpers.ts';

const SPEC_PATHS = /^\/v1\/(?:images\/generations|images\/edits|video\/generate|video\/edits|uploads\/images|uploads\/videos|tasks\/[^/]+)$/;

describe.each(['node', 'fetch'] as Mode[])('the proxy is not a relay (%s handler)', (mode) => {
  let mock: MockServer;
  let elsewhere: Awaited<ReturnType<typeof startRecorder>>;
  let proxy: RunningProxy;
  let taskId: string;

  beforeAll(async () => {
    mock = await startMockServer({ apiKeys: [KEY] });
    elsewhere = await startRecorder();
    proxy = await startProxy({ upstream: mock.url }, mode);
    const submitted = await rawPost(proxy.port, '/api/omnimedia/v1/images/generations', JSON.stringify({ model: 'omni-image', prompt: 'a fox' }));
    expect(submitted.status, submitted.body).toBe(200);
    taskId = (JSON.parse(submitted.body) as { task_id: string }).task_id;
  });
  afterAll(async () => {
    await proxy.close();
    await elsewhere.close();
    await mock.close();
  });

  it('answers a real task query (the battery below is not refusing everything)', async () => {
    const answer = await rawGet(proxy.port, `/api/omnimedia/v1/tasks/${taskId}`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ task_id: taskId });
  });

  const E = () => `127.0.0.1:${elsewhere.port}`;
  const attacks: [string, () => string][] = [
    ['dot segments', () => `GET /api/omnimedia/v1/tasks/../../../elsewhere HTTP/1.1`],
    ['dot segments to another endpoint', () => `GET /api/omnimedia/v1/tasks/x/../../uploads/images HTTP/1.1`],
    ['a single dot segment', () => `GET /api/omnimedia/v1/tasks/. HTTP/1.1`],
    ['encoded dot segments', () => `GET /api/omnimedia/v1/tasks/%2e%2e/%2e%2e/x HTTP/1.1`],
    ['upper-case encoded dots', () => `GET /api/omnimedia/v1/tasks/%2E%2E HTTP/1.1`],
    ['a task id with an encoded slash', () => `GET /api/omnimedia/v1/tasks/a%2fb HTTP/1.1`],
    ['a task id with an encoded backslash', () => `GET /api/omnimedia/v1/tasks/a%5Cb HTTP/1.1`],
    ['a task id with an encoded NUL', () => `GET /api/omnimedia/v1/tasks/a%00b HTTP/1.1`],
    ['a double-encoded dot', () => `GET /api/omnimedia/v1/tasks/%252e%252e HTTP/1.1`],
    ['a task id with an encoded dot', () => `GET /api/omnimedia/v1/tasks/%2e HTTP/1.1`],
    ['backslashes', () => `GET /api/omnimedia/v1/tasks/x\\..\\..\\admin HTTP/1.1`],
    ['an empty segment (//)', () => `GET /api/omnimedia//v1/tasks/x HTTP/1.1`],
    ['a protocol-relative path', () => `GET //${E()}/v1/tasks/x HTTP/1.1`],
    ['an absolute-form target to elsewhere', () => `GET http://${E()}/api/omnimedia/v1/tasks/x HTTP/1.1`],
    ['an absolute-form target of the proxy itself', () => `GET http://127.0.0.1:${proxy.port}/api/omnimedia/v1/tasks/x HTTP/1.1`],
    ['a ?url= parameter', () => `GET /api/omnimedia/v1/tasks/${taskId}?url=http://${E()}/ HTTP/1.1`],
    ['a query on a submission', () => `POST /api/omnimedia/v1/images/generations?target=http://${E()} HTTP/1.1`],
    ['a fragment', () => `GET /api/omnimedia/v1/tasks/${taskId}#x HTTP/1.1`],
    ['another version', () => `GET /api/omnimedia/v2/tasks/x HTTP/1.1`],
    ['another path', () => `GET /api/omnimedia/v1/admin HTTP/1.1`],
    ['a task query without an id', () => `GET /api/omnimedia/v1/tasks/ HTTP/1.1`],
    ['a path under a task', () => `GET /api/omnimedia/v1/tasks/x/y HTTP/1.1`],
    ['a matrix parameter', () => `GET /api/omnimedia/v1/uploads/images;/x HTTP/1.1`],
    ['GET on a submission', () => `GET /api/omnimedia/v1/images/generations HTTP/1.1`],
    ['POST on a task', () => `POST /api/omnimedia/v1/tasks/${taskId} HTTP/1.1`],
    ['PUT', () => `PUT /api/omnimedia/v1/images/generations HTTP/1.1`],
    ['DELETE', () => `DELETE /api/omnimedia/v1/tasks/${taskId} HTTP/1.1`],
    ['PATCH', () => `PATCH /api/omnimedia/v1/video/edits HTTP/1.1`],
    ['TRACE', () => `TRACE /api/omnimedia/v1/tasks/${taskId} HTTP/1.1`],
    ['HEAD', () => `HEAD /api/omnimedia/v1/tasks/${taskId} HTTP/1.1`],
    ['the base path itself', () => `GET /api/omnimedia HTTP/1.1`],
    ['outside the base path', () => `GET /v1/tasks/${taskId} HTTP/1.1`],
  ];

  // What `handler` never sees: a fragment (the runtime drops it); the request line itself (an
  // absolute-form target is a URL like any other), and it reads only the URL's path (its host
  // and query may be the framework's own: Next.js names localhost, its edge runtime adds a
  // query). These then go to the configured service, the endpoint alone (the test after).
  const readPastByHandler = ['a fragment', 'an absolute-form target of the proxy itself', 'an absolute-form target to elsewhere', 'a ?url= parameter', 'a query on a submission'];
  const normalisedByTheRuntime = mode === 'fetch' ? readPastByHandler : [];

  it.each(attacks.filter(([name]) => !normalisedByTheRuntime.includes(name)))('%s: a 4xx, and nothing reaches elsewhere or leaves the spec\u2019s paths', async (_name, line) => {
    const before = mock.mock.requests.length;
    const answer = await rawRequest(proxy.port, `${line()}\r\nHost: 127.0.0.1:${proxy.port}\r\nCookie: ${SESSION}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    // Some never reach the proxy: Node's parser refuses them first (a 400 too).
    expect(answer.status, answer.raw.slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(elsewhere.requests).toEqual([]);
    expect(mock.mock.requests.slice(before)).toEqual([]);
  });

  it.runIf(mode === 'fetch')('an absolute-form target, a query: they choose nothing; the configured service gets the endpoint alone', async () => {
    for (const target of [
      `http://127.0.0.1:${proxy.port}/api/omnimedia/v1/tasks/${taskId}`,
      `http://${E()}/api/omnimedia/v1/tasks/${taskId}`,
      `/api/omnimedia/v1/tasks/${taskId}?url=http://${E()}/`,
    ]) {
      const before = mock.mock.requests.length;
      const answer = await rawRequest(proxy.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\nCookie: ${SESSION}\r\nConnection: close\r\n\r\n`);
      expect(answer.status, target).toBe(200);
      expect(mock.mock.requests.slice(before).map((r) => r.path)).toEqual([`/v1/tasks/${taskId}`]);
    }
    expect(elsewhere.requests).toEqual([]);
  });

  const headerAttacks: [string, string[]][] = [
    ['Host', []],
    ['X-Forwarded-Host', ['X-Forwarded-Host: ELSEWHERE', 'X-Forwarded-Proto: http', 'X-Forwarded-Port: PORT']],
    ['Forwarded', ['Forwarded: host=ELSEWHERE;proto=http']],
    ['X-Original-URL / X-Rewrite-URL', ['X-Original-URL: http://ELSEWHERE/v1/tasks/x', 'X-Rewrite-URL: http://ELSEWHERE/v1/tasks/x']],
    ['a target-URL header (fal\u2019s proxy style)', ['x-fal-target-url: http://ELSEWHERE/v1/tasks/x', 'X-Target-URL: http://ELSEWHERE/']],
  ];

  it.each(headerAttacks)('%s pointing elsewhere: the task query still goes to the configured service only', async (name, headers) => {
    const before = mock.mock.requests.length;
    const host = name === 'Host' ? E() : `127.0.0.1:${proxy.port}`;
    const filled = headers.map((h) => h.replaceAll('ELSEWHERE', E()).replaceAll('PORT', String(elsewhere.port)));
    const answer = await rawRequest(proxy.port, `GET /api/omnimedia/v1/tasks/${taskId} HTTP/1.1\r\nHost: ${host}\r\nCookie: ${SESSION}\r\n${filled.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n`);
    expect(answer.status).toBe(200);
    expect(elsewhere.requests).toEqual([]);
    expect(mock.mock.requests.slice(before).map((r) => r.path)).toEqual([`/v1/tasks/${taskId}`]);
  });

  it('the service saw only the spec\u2019s paths through it, all along', () => {
    expect(mock.mock.requests.length).toBeGreaterThan(0);
    for (const request of mock.mock.requests) expect(request.path).toMatch(SPEC_PATHS);
  });
});

describe('a base URL with a path prefix', () => {
  it('is kept: the endpoint is appended to it, and nothing can climb out of it', async () => {
    const upstream = await startRecorder((request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ task_id: 'task_1', status: 'pending' })));
    const proxy = await startProxy({ upstream: `${upstream.url}/gateway/omni` });
    try {
      expect((await rawGet(proxy.port, '/api/omnimedia/v1/tasks/task_1')).status).toBe(200);
      expect((await rawGet(proxy.port, '/api/omnimedia/v1/tasks/..%2F..%2Fadmin')).status).toBe(400);
      expect((await rawGet(proxy.port, '/api/omnimedia/v1/tasks/../../admin')).status).toBe(400);
      expect(upstream.requests.map((r) => r.target)).toEqual(['/gateway/omni/v1/tasks/task_1']);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe('an upstream that redirects', () => {
  it.each([
    ['a submission', 'POST', '/api/omnimedia/v1/images/generations', 'application/json', '{"model":"m","prompt":"p"}'],
    ['a task query', 'GET', '/api/omnimedia/v1/tasks/task_1', undefined, undefined],
    ['an upload', 'POST', '/api/omnimedia/v1/uploads/images', 'multipart/form-data; boundary=b', undefined],
  ])('%s: a 502, never followed to where it points', async (_name, method, path, type, json) => {
    const elsewhere = await startRecorder();
    const upstream = await startRecorder((_request, res) => void res.writeHead(307, { location: `${elsewhere.url}/steal` }).end());
    const proxy = await startProxy({ upstream: upstream.url });
    try {
      const png = new Uint8Array(readFileSync(new URL('../fixtures/tiny.png', import.meta.url)));
      const body =
        json ?? (method === 'POST' ? Buffer.concat([Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n'), png, Buffer.from('\r\n--b--\r\n')]) : null);
      const answer = await fetch(`${proxy.url}${path}`, { method, headers: { cookie: SESSION, ...(type ? { 'content-type': type } : {}) }, body });
      expect(answer.status).toBe(502);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('upstream_redirect');
      expect(upstream.requests).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await proxy.close();
      await upstream.close();
      await elsewhere.close();
    }
  });
});
