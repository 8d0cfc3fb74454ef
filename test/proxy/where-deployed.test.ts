// The proxy where users deploy it: the requests frameworks and reverse proxies hand over, and
// builds that hold no secrets. Next.js gives route handlers `http://localhost:<port>/...`
// whatever the Host header says, and its edge runtime adds the catch-all segments as a query;
// a reverse proxy in front sends the public Host (or keeps its own and says X-Forwarded-Host).
// (test/package/nextjs/run.mjs runs the real Next.js recipe, from the tarball, in Chromium.)
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProxy, type ProxyOptions } from 'omnimedia/proxy';
import { KEY, SESSION, rawRequest, startProxy, startRecorder } from './helpers.ts';

const TASK = JSON.stringify({ task_id: 'task_1', status: 'pending', model: 'm', created_at: 1 });
const SUBMIT = JSON.stringify({ model: 'omni-image', prompt: 'a fox' });

let upstream: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  upstream = await startRecorder((_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(TASK));
});
afterEach(() => {
  upstream.requests.length = 0;
  vi.unstubAllEnvs();
});
afterAll(() => upstream.close());

const logs: string[] = [];
const logger = { error: (line: string) => void logs.push(`error ${line}`), warn: (line: string) => void logs.push(`warn ${line}`), info() {}, debug() {} };
const proxyOf = (options: Partial<ProxyOptions> = {}) =>
  createProxy({ apiKey: KEY, baseURL: upstream.url, basePath: '/api/omnimedia', authorize: () => ({ id: 'alice' }), logger, ...options });

/** A request as a framework hands it to a route handler: its URL, and the headers the browser sent. */
const handed = (url: string, headers: Record<string, string>, method = 'GET') =>
  new Request(url, { method, headers: { cookie: SESSION, ...headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) }, ...(method === 'POST' ? { body: SUBMIT } : {}) });

describe('handler: what a framework rewrote chooses nothing', () => {
  // Every proxied call was a 400 "the request URL names another host than the Host header" unless
  // the page was opened at exactly http://localhost:<port> (issue 29).
  it('Next.js (Node runtime): the URL names localhost, the page is at 127.0.0.1 or a public host: served', async () => {
    const proxy = proxyOf();
    for (const host of ['127.0.0.1:3000', 'app.example', '192.0.2.10:3000']) {
      const browser = { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' };
      const query = await proxy.handler(handed('http://localhost:3000/api/omnimedia/v1/tasks/task_1', browser));
      expect(query.status, await query.clone().text()).toBe(200);
      const submission = await proxy.handler(handed('http://localhost:3000/api/omnimedia/v1/images/generations', browser, 'POST'));
      expect(submission.status, await submission.clone().text()).toBe(200);
    }
    expect(upstream.requests.map((r) => `${r.method} ${r.target}`)).toEqual(Array(3).fill(['GET /v1/tasks/task_1', 'POST /v1/images/generations']).flat());
  });

  // Next's edge runtime: every call was `ambiguous_target: the request target holds a query string`.
  it('Next.js (edge runtime): the catch-all segments added as a query are read past, and never forwarded', async () => {
    const proxy = proxyOf();
    const browser = { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' };
    const query = await proxy.handler(handed('http://localhost:3000/api/omnimedia/v1/tasks/task_1?path=v1&path=tasks&path=task_1', browser));
    expect(query.status, await query.clone().text()).toBe(200);
    const submission = await proxy.handler(handed('http://localhost:3000/api/omnimedia/v1/images/generations?path=v1&path=images&path=generations', browser, 'POST'));
    expect(submission.status, await submission.clone().text()).toBe(200);
    // Whatever a query says (a page's, a framework's), the upstream URL is the base URL and the endpoint.
    const hostile = await proxy.handler(handed('http://localhost:3000/api/omnimedia/v1/tasks/task_1?url=http://169.254.169.254/&path=..', browser));
    expect(hostile.status).toBe(200);
    expect(upstream.requests.map((r) => r.target)).toEqual(['/v1/tasks/task_1', '/v1/images/generations', '/v1/tasks/task_1']);
  });

  // A browser without Sec-Fetch-Site is judged by its Origin against the host it was sent to.
  it('the page\u2019s own origin is the Host header\u2019s, never the URL\u2019s host', async () => {
    const proxy = proxyOf();
    const post = (origin: string) => proxy.handler(handed('http://localhost:3000/api/omnimedia/v1/images/generations', { host: 'app.example', origin }, 'POST'));
    expect((await post('http://app.example')).status).toBe(200);
    expect((await post('https://app.example')).status).toBe(200); // a TLS terminator in front
    const forged = await post('http://localhost:3000');
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('cross_site');
    expect(upstream.requests).toHaveLength(2);
  });

  it('a Host that is not a host and port names no origin', async () => {
    const proxy = proxyOf();
    for (const host of ['app.example/x', 'evil@app.example', 'app.example x']) {
      const answer = await proxy.handler(handed('http://localhost:3000/api/omnimedia/v1/images/generations', { host, origin: 'http://app.example' }, 'POST'));
      expect(answer.status, host).toBe(403);
    }
    expect(upstream.requests).toEqual([]);
  });
});

describe('behind a reverse proxy that keeps its own Host: trustProxy', () => {
  const behind = (headers: Record<string, string>) => handed('http://10.0.0.5:3000/api/omnimedia/v1/images/generations', { host: '10.0.0.5:3000', origin: 'https://app.example', ...headers }, 'POST');

  it.each([
    ['X-Forwarded-Host', { 'x-forwarded-host': 'app.example, 10.0.0.2', 'x-forwarded-proto': 'https' }],
    ['Forwarded', { forwarded: 'for=192.0.2.60;proto=https;host="app.example", for=10.0.0.2' }],
  ])('%s names the page\u2019s host only with trustProxy: true', async (_name, headers) => {
    expect((await proxyOf().handler(behind(headers))).status).toBe(403);
    expect((await proxyOf({ trustProxy: true }).handler(behind(headers))).status).toBe(200);
    expect(upstream.requests.map((r) => r.target)).toEqual(['/v1/images/generations']);
  });

  it('trustProxy chooses nothing upstream: the request goes to the base URL and the endpoint', async () => {
    const elsewhere = await startRecorder();
    try {
      const answer = await proxyOf({ trustProxy: true }).handler(behind({ 'x-forwarded-host': `127.0.0.1:${elsewhere.port}`, origin: `http://127.0.0.1:${elsewhere.port}` }));
      expect(answer.status).toBe(200);
      expect(elsewhere.requests).toEqual([]);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await elsewhere.close();
    }
  });

  it('nodeHandler: the same Host rules, and an absolute-form target or a query on the wire is still refused', async () => {
    const proxy = await startProxy({ upstream: upstream.url, trustProxy: true });
    try {
      const post = (target: string, headers: string[]) =>
        rawRequest(proxy.port, `POST ${target} HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join('')}Cookie: ${SESSION}\r\nContent-Type: application/json\r\nContent-Length: ${SUBMIT.length}\r\nConnection: close\r\n\r\n${SUBMIT}`);
      expect((await post('/api/omnimedia/v1/images/generations', ['Host: 10.0.0.5:3000', 'X-Forwarded-Host: app.example', 'Origin: https://app.example'])).status).toBe(200);
      expect((await post('/api/omnimedia/v1/images/generations', ['Host: 10.0.0.5:3000', 'Origin: https://app.example'])).status).toBe(403);
      expect((await post('http://app.example/api/omnimedia/v1/images/generations', ['Host: app.example'])).status).toBe(400);
      expect((await post('/api/omnimedia/v1/images/generations?path=v1', ['Host: app.example'])).status).toBe(400);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('is checked: true or false', () => {
    expect(() => proxyOf({ trustProxy: 'yes' as never })).toThrow(/trustProxy: must be true or false/);
  });
});

describe('a build without the service\u2019s secrets', () => {
  // `next build` evaluates the route module: createProxy threw for want of OMNIMEDIA_API_KEY and
  // OMNIMEDIA_BASE_URL, which a CI or container build does not hold (issue 29).
  it('createProxy needs neither the key nor the base URL until it first forwards', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', undefined);
    vi.stubEnv('OMNIMEDIA_BASE_URL', undefined);
    logs.length = 0;
    const proxy = createProxy({ basePath: '/api/omnimedia', authorize: (request) => (request.headers.get('cookie') === SESSION ? { id: 'alice' } : null), logger });
    const query = () => proxy.handler(new Request('http://localhost/api/omnimedia/v1/tasks/task_1', { headers: { cookie: SESSION } }));
    // Not configured: a 500 that tells the page nothing of it; the log says what is missing.
    const answer = await query();
    expect(answer.status).toBe(500);
    const body = await answer.text();
    expect(JSON.parse(body)).toEqual({ error: { code: 'proxy_not_configured', message: 'the proxy is not configured: nothing was forwarded' } });
    expect(logs).toEqual([expect.stringMatching(/proxy: request refused, nothing forwarded: .*apiKey: is required: pass apiKey or set OMNIMEDIA_API_KEY.*baseURL: is required/)]);
    // Who asks is still checked first: a stranger learns nothing of the configuration.
    expect((await proxy.handler(new Request('http://localhost/api/omnimedia/v1/tasks/task_1'))).status).toBe(401);
    // Set at run time (the server's environment): read at the first forward, then kept.
    vi.stubEnv('OMNIMEDIA_API_KEY', KEY);
    vi.stubEnv('OMNIMEDIA_BASE_URL', upstream.url);
    expect((await query()).status).toBe(200);
    vi.stubEnv('OMNIMEDIA_BASE_URL', 'http://127.0.0.1:9');
    expect((await query()).status).toBe(200);
    expect(upstream.requests).toHaveLength(2);
  });

  it('a key or base URL given as an option is still checked at creation', () => {
    expect(() => createProxy({ authorize: () => null, baseURL: 'ftp://x' })).toThrow(/baseURL: is required, an absolute http\(s\) URL/);
    expect(() => createProxy({ authorize: () => null, apiKey: '' })).toThrow(/apiKey: is required/);
  });

  it('a key from the environment is kept out of the log lines too', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', KEY);
    vi.stubEnv('OMNIMEDIA_BASE_URL', upstream.url);
    logs.length = 0;
    const proxy = createProxy({ authorize: () => ({ id: 'alice' }), logger, policy: () => Promise.reject(new Error(`policy store said ${KEY}`)) });
    await proxy.handler(new Request('http://localhost/v1/tasks/task_1'));
    await proxy.handler(new Request('http://localhost/v1/tasks/task_1'));
    expect(logs.length).toBe(2);
    for (const line of logs) expect(line).not.toContain(KEY);
  });
});
