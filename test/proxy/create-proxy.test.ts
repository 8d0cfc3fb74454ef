// "Nothing reaches the service unchecked": authorize (required, run for every request, fail
// closed), the origin check (CSRF, CORS), the JSON cap and the SDK's own schemas, the page's
// callback_url, policy and onSubmitted. The upstream is a recorder: what it did not receive was
// not forwarded.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, BadRequestError, OmniMedia, PermissionDeniedError, ValidationError } from 'omnimedia';
import { createProxy, ProxyDenied, type ProxyOptions } from 'omnimedia/proxy';
import { KEY, SESSION, startProxy, startRecorder, type Mode, type RunningProxy } from './helpers.ts';

const SUBMISSION = { task_id: 'task_1', status: 'pending', model: 'omni-image', created_at: 1 };

describe('createProxy\u2019s options', () => {
  it('without authorize it throws at creation, naming it (there is no default-open)', () => {
    expect(() => createProxy({ apiKey: KEY, baseURL: 'https://api.example.com' } as ProxyOptions)).toThrow(ValidationError);
    expect(() => createProxy({ apiKey: KEY, baseURL: 'https://api.example.com' } as ProxyOptions)).toThrow(/authorize: is required/);
  });

  it('names every bad option with its rule', () => {
    try {
      createProxy({
        authorize: () => null,
        apiKey: '',
        baseURL: 'ftp://x',
        basePath: '/api/../x',
        allowedOrigins: ['*', 'not an origin'],
        callbackURL: 'javascript:alert(1)',
        rateLimit: { submissions: { limit: 0, windowMs: 1000 } },
        timeout: 0,
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toEqual([
        'apiKey',
        'baseURL',
        'basePath',
        'allowedOrigins[0]',
        'allowedOrigins[1]',
        'callbackURL',
        'rateLimit.submissions.limit',
        'timeout',
      ]);
      expect((error as Error).message).toMatch(/'\*' is never allowed/);
      expect((error as Error).message).not.toContain(KEY);
    }
  });

  it('reads the key and the base URL from the environment, as the client does', () => {
    process.env.OMNIMEDIA_API_KEY = KEY;
    process.env.OMNIMEDIA_BASE_URL = 'https://api.example.com';
    try {
      expect(() => createProxy({ authorize: () => null })).not.toThrow();
    } finally {
      delete process.env.OMNIMEDIA_API_KEY;
      delete process.env.OMNIMEDIA_BASE_URL;
    }
  });
});

describe.each(['node', 'fetch'] as Mode[])('nothing reaches the service unchecked (%s handler)', (mode) => {
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  const opened: RunningProxy[] = [];
  const proxyWith = async (options: Partial<ProxyOptions> = {}) => {
    const proxy = await startProxy({ upstream: upstream.url, ...options }, mode);
    opened.push(proxy);
    return proxy;
  };
  const post = (proxy: RunningProxy, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${proxy.url}/api/omnimedia/v1/${path}`, {
      method: 'POST',
      headers: { cookie: SESSION, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = (proxy: RunningProxy, path: string, headers: Record<string, string> = {}) =>
    fetch(`${proxy.url}/api/omnimedia/v1/${path}`, { headers: { cookie: SESSION, ...headers } });
  const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string; issues?: unknown } }).error;

  beforeAll(async () => {
    upstream = await startRecorder((_request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SUBMISSION)));
  });
  afterEach(async () => {
    for (const proxy of opened.splice(0)) await proxy.close();
    upstream.requests.length = 0;
  });
  afterAll(() => upstream.close());

  describe('authorize', () => {
    it.each([null, undefined, false, 0, ''])('returning %s is a 401 on every endpoint, task queries included; nothing is forwarded', async (value) => {
      const proxy = await proxyWith({ authorize: () => value as never });
      expect((await post(proxy, 'images/generations', { model: 'm', prompt: 'p' })).status).toBe(401);
      expect((await get(proxy, 'tasks/task_1')).status).toBe(401);
      expect((await post(proxy, 'uploads/images', 'x', { 'content-type': 'multipart/form-data; boundary=b' })).status).toBe(401);
      expect(upstream.requests).toEqual([]);
    });

    it('runs for every request, with the page\u2019s Request', async () => {
      const seen: string[] = [];
      const proxy = await proxyWith({ authorize: (request) => (seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('cookie')}`), { id: 'alice' }) });
      await post(proxy, 'images/generations', { model: 'm', prompt: 'p' });
      await get(proxy, 'tasks/task_1');
      expect(seen).toEqual([`POST /api/omnimedia/v1/images/generations ${SESSION}`, `GET /api/omnimedia/v1/tasks/task_1 ${SESSION}`]);
    });

    it('one that throws is a refusal, never a forward: ProxyDenied is a 403 with its words, anything else a 500', async () => {
      const denied = await proxyWith({ authorize: () => Promise.reject(new ProxyDenied('your account is suspended')) });
      const broken = await proxyWith({ authorize: () => { throw new Error('session store down'); } });
      const noId = await proxyWith({ authorize: () => ({ name: 'no id' }) as never });
      const deniedAnswer = await get(denied, 'tasks/task_1');
      expect(deniedAnswer.status).toBe(403);
      expect((await errorOf(deniedAnswer)).message).toBe('your account is suspended');
      expect((await post(broken, 'images/generations', { model: 'm', prompt: 'p' })).status).toBe(500);
      expect((await get(noId, 'tasks/task_1')).status).toBe(500);
      expect(upstream.requests).toEqual([]);
      expect(broken.logs.join('\n')).toMatch(/authorize threw, request refused: session store down/);
    });

    it('the page\u2019s client maps the refusals to its typed errors', async () => {
      const proxy = await proxyWith({ authorize: (request) => (request.headers.get('cookie') ? { id: 'alice' } : null), policy: () => { throw new ProxyDenied('not on your plan'); } });
      const anonymous = new OmniMedia({ proxyURL: `${proxy.url}/api/omnimedia` });
      const signedIn = new OmniMedia({ proxyURL: `${proxy.url}/api/omnimedia`, defaultHeaders: { cookie: SESSION } });
      await expect(anonymous.images.generate({ model: 'm', prompt: 'p' })).rejects.toBeInstanceOf(AuthenticationError);
      const denied = await signedIn.images.generate({ model: 'm', prompt: 'p' }).catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(PermissionDeniedError);
      expect((denied as Error).message).toMatch(/not on your plan/);
    });
  });

  describe('cross-site requests (CSRF) and CORS', () => {
    const authorizeCalls: string[] = [];
    const counting: ProxyOptions['authorize'] = (request) => (authorizeCalls.push(request.url), { id: 'alice' });

    it.each([
      ['another site\u2019s Origin', { origin: 'https://evil.example' }],
      ['another site, by Sec-Fetch-Site, without an Origin', { 'sec-fetch-site': 'cross-site' }],
      ['a sibling subdomain (same-site) not listed', { 'sec-fetch-site': 'same-site', origin: 'https://other.app.example.com' }],
      ['an opaque origin (a sandboxed frame, a file)', { origin: 'null' }],
      ['a same-looking origin the browser calls cross-site', { origin: 'http://127.0.0.1', 'sec-fetch-site': 'cross-site' }],
    ])('%s: 403 before authorize reads the cookie; nothing forwarded', async (_name, headers) => {
      const proxy = await proxyWith({ authorize: counting });
      authorizeCalls.length = 0;
      const submitted = await post(proxy, 'images/generations', { model: 'm', prompt: 'p' }, headers);
      expect(submitted.status).toBe(403);
      expect((await errorOf(submitted)).code).toBe('cross_site');
      expect(submitted.headers.get('access-control-allow-origin')).toBeNull();
      expect((await get(proxy, 'tasks/task_1', headers)).status).toBe(403);
      expect(authorizeCalls).toEqual([]);
      expect(upstream.requests).toEqual([]);
    });

    it.each(['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', ''])(
      'a form-style POST (%s) is 403 even from the page\u2019s own origin: a cross-site form can send it without a preflight',
      async (type) => {
        const proxy = await proxyWith();
        const answer = await fetch(`${proxy.url}/api/omnimedia/v1/images/generations`, {
          method: 'POST',
          headers: { cookie: SESSION, 'sec-fetch-site': 'same-origin', ...(type ? { 'content-type': type } : {}) },
          body: type ? JSON.stringify({ model: 'm', prompt: 'p' }) : new Uint8Array(0),
        });
        expect(answer.status).toBe(403);
        expect((await errorOf(answer)).code).toBe('form_post');
        expect(upstream.requests).toEqual([]);
      },
    );

    it('the page\u2019s own origin passes (Sec-Fetch-Site same-origin, or an Origin on its own host)', async () => {
      const proxy = await proxyWith();
      expect((await post(proxy, 'images/generations', { model: 'm', prompt: 'p' }, { 'sec-fetch-site': 'same-origin', origin: proxy.url })).status).toBe(200);
      expect((await post(proxy, 'images/generations', { model: 'm', prompt: 'p' }, { origin: proxy.url })).status).toBe(200);
      expect((await get(proxy, 'tasks/task_1', { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    });

    it('a listed origin gets CORS answers for it alone, with credentials, never *, and Vary: Origin', async () => {
      const proxy = await proxyWith({ allowedOrigins: ['https://app.example.com/'] });
      const answer = await post(proxy, 'images/generations', { model: 'm', prompt: 'p' }, { origin: 'https://app.example.com', 'sec-fetch-site': 'cross-site' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
      expect(answer.headers.get('vary')).toMatch(/Origin/);

      const preflight = await fetch(`${proxy.url}/api/omnimedia/v1/images/generations`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
      expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');

      for (const [origin, method] of [['https://evil.example', 'POST'], ['https://app.example.com', 'DELETE'], ['null', 'POST']]) {
        const refused = await fetch(`${proxy.url}/api/omnimedia/v1/images/generations`, {
          method: 'OPTIONS',
          headers: { origin: origin as string, 'access-control-request-method': method as string },
        });
        expect(refused.status).toBe(403);
        expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      }
      expect(upstream.requests.map((r) => r.method)).toEqual(['POST']);
    });

    it('every answer, refusals included, says Vary: Origin and is not cached', async () => {
      const proxy = await proxyWith();
      for (const answer of [await get(proxy, 'tasks/task_1'), await get(proxy, 'nothing'), await post(proxy, 'images/generations', 'x', { 'content-type': 'text/plain' })]) {
        expect(answer.headers.get('vary')).toMatch(/Origin/);
        expect(answer.headers.get('cache-control')).toBe('no-store');
      }
    });
  });

  describe('JSON bodies', () => {
    it('over 1 MiB is a 413, declared or streamed, and nothing is forwarded', async () => {
      const proxy = await proxyWith();
      const big = JSON.stringify({ model: 'm', prompt: 'p', padding: 'x'.repeat(1024 * 1024) });
      expect((await post(proxy, 'images/generations', big)).status).toBe(413);
      const streamed = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      });
      const answer = await fetch(`${proxy.url}/api/omnimedia/v1/images/generations`, {
        method: 'POST',
        headers: { cookie: SESSION, 'content-type': 'application/json' },
        body: streamed,
        duplex: 'half',
      } as RequestInit);
      expect(answer.status).toBe(413);
      expect(upstream.requests).toEqual([]);
    });

    it.each([
      ['not JSON', '{"model":'],
      ['not UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
      ['not an object', '[1,2]'],
      ['nested too deep', `${'['.repeat(100)}${']'.repeat(100)}`],
    ])('%s: 400, nothing forwarded', async (_name, body) => {
      const proxy = await proxyWith();
      const answer = await fetch(`${proxy.url}/api/omnimedia/v1/images/generations`, { method: 'POST', headers: { cookie: SESSION, 'content-type': 'application/json' }, body });
      expect(answer.status).toBe(400);
      expect(upstream.requests).toEqual([]);
    });

    it('is checked with the SDK\u2019s own schemas: 400 with the very issues the client\u2019s ValidationError names', async () => {
      const proxy = await proxyWith();
      const params = { model: 'omni-image', prompt: 'x'.repeat(4001), size: '1000x1000', n: 5 } as const;
      const local = (await new OmniMedia({ baseURL: 'http://127.0.0.1:9', apiKey: 'k' }).images.generate(params as never).catch((e: unknown) => e)) as ValidationError;
      const answer = await post(proxy, 'images/generations', params);
      expect(answer.status).toBe(400);
      expect((await errorOf(answer)).issues).toEqual(local.issues);

      // A page that skips its own validation gets BadRequestError with the issues.
      const page = new OmniMedia({ proxyURL: `${proxy.url}/api/omnimedia`, defaultHeaders: { cookie: SESSION }, fetch: (input, init) => fetch(input, { ...init, body: JSON.stringify(params) }) });
      const error = (await page.images.generate({ model: 'omni-image', prompt: 'ok' }).catch((e: unknown) => e)) as BadRequestError;
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error.body as { error: { issues: unknown } }).error.issues).toEqual(local.issues);
      expect(upstream.requests).toEqual([]);
    });

    it('forwards what the schemas made of it (seconds as a string), unknown fields kept', async () => {
      const proxy = await proxyWith();
      const answer = await post(proxy, 'video/generate', { model: 'omni_flash', messages: [{ role: 'user', content: 'a fox' }], seconds: 8, extra_field: true });
      expect(answer.status).toBe(200);
      expect(JSON.parse(upstream.requests[0]!.body.toString())).toEqual({ model: 'omni_flash', messages: [{ role: 'user', content: 'a fox' }], seconds: '8', extra_field: true });
    });

    it.each([
      ['without callbackURL, is dropped', undefined, undefined],
      ['with callbackURL, is replaced by it', 'https://app.example.com/hooks/omnimedia', 'https://app.example.com/hooks/omnimedia'],
    ])('a page-sent callback_url %s (even a malformed one)', async (_name, callbackURL, expected) => {
      const proxy = await proxyWith(callbackURL ? { callbackURL } : {});
      for (const sent of ['http://169.254.169.254/latest/meta-data', 'not a url']) {
        expect((await post(proxy, 'images/generations', { model: 'm', prompt: 'p', callback_url: sent })).status).toBe(200);
      }
      for (const request of upstream.requests) expect(JSON.parse(request.body.toString()).callback_url).toBe(expected);
      expect(upstream.requests).toHaveLength(2);
    });
  });

  describe('policy and onSubmitted', () => {
    it('policy is asked with the identity, the operation and the checked params; false is a 403 and nothing is forwarded', async () => {
      const asked: unknown[] = [];
      const proxy = await proxyWith({
        policy: ({ identity, operation, params }) => {
          asked.push(structuredClone({ identity, operation, params }));
          (params as { prompt?: string }).prompt = 'changed by the policy';
          return operation !== 'video_generation';
        },
      });
      expect((await post(proxy, 'images/generations', { model: 'm', prompt: 'p' })).status).toBe(200);
      expect((await get(proxy, 'tasks/task_9')).status).toBe(200);
      const refused = await post(proxy, 'video/generate', { model: 'omni_flash', messages: [{ role: 'user', content: 'x' }], seconds: 4 });
      expect(refused.status).toBe(403);
      expect(asked).toEqual([
        { identity: { id: 'alice' }, operation: 'image_generation', params: { model: 'm', prompt: 'p' } },
        { identity: { id: 'alice' }, operation: 'task_query', params: { task_id: 'task_9' } },
        { identity: { id: 'alice' }, operation: 'video_generation', params: { model: 'omni_flash', messages: [{ role: 'user', content: 'x' }], seconds: '4' } },
      ]);
      // What was checked is what went: the policy got a copy.
      expect(upstream.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
      expect(JSON.parse(upstream.requests[0]!.body.toString()).prompt).toBe('p');
    });

    it('onSubmitted hears each accepted submission once, with the task id; a hook that throws costs the page nothing', async () => {
      const heard: unknown[] = [];
      const proxy = await proxyWith({
        onSubmitted: (submission) => {
          heard.push(submission);
          throw new Error('billing database down');
        },
      });
      const answer = await post(proxy, 'images/generations', { model: 'm', prompt: 'p' });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ task_id: 'task_1' });
      await get(proxy, 'tasks/task_1');
      expect(heard).toEqual([{ identity: { id: 'alice' }, operation: 'image_generation', task_id: 'task_1' }]);
      expect(proxy.logs.join('\n')).toMatch(/onSubmitted threw for task task_1: billing database down/);
    });

    it('together they restrict reads to the tasks the same identity submitted (the README\u2019s recipe)', async () => {
      const owners = new Map<string, string | number>();
      const proxy = await proxyWith({
        authorize: (request) => {
          const user = /user=(\w+)/.exec(request.headers.get('cookie') ?? '')?.[1];
          return user ? { id: user } : null;
        },
        onSubmitted: ({ identity, task_id }) => void owners.set(task_id, identity.id),
        policy: ({ identity, operation, params }) => operation !== 'task_query' || owners.get(String(params.task_id)) === identity.id,
      });
      await post(proxy, 'images/generations', { model: 'm', prompt: 'p' }, { cookie: 'user=alice' });
      expect((await get(proxy, 'tasks/task_1', { cookie: 'user=alice' })).status).toBe(200);
      expect((await get(proxy, 'tasks/task_1', { cookie: 'user=bob' })).status).toBe(403);
      expect((await get(proxy, 'tasks/task_other', { cookie: 'user=alice' })).status).toBe(403);
      expect(upstream.requests.map((r) => `${r.method} ${r.target}`)).toEqual(['POST /v1/images/generations', 'GET /v1/tasks/task_1']);
    });
  });
});

// Issue 30, suspected and proven: a 2xx answer whose task_id is a number (which the page's
// client reads as its decimal string, as the spec's "string" allows a tolerant reader to) was
// billed, handed to the page, and never heard by onSubmitted: the README's ownership recipe
// then refused the page its own task.
describe('onSubmitted and the task id of an accepted answer', () => {
  let answer = '';
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  beforeAll(async () => {
    upstream = await startRecorder((_request, res) => void res.writeHead(202, { 'content-type': 'application/json' }).end(answer));
  });
  afterAll(() => upstream.close());

  const logs: string[] = [];
  const owners = new Map<string, string | number>();
  const proxy = () =>
    createProxy({
      apiKey: KEY,
      baseURL: upstream.url,
      authorize: () => ({ id: 'alice' }),
      onSubmitted: ({ identity, task_id }) => void owners.set(task_id, identity.id),
      policy: ({ identity, operation, params }) => operation !== 'task_query' || owners.get(String(params.task_id)) === identity.id,
      logger: { error: (line: string) => void logs.push(line), warn: (line: string) => void logs.push(line), info() {}, debug() {} },
    });
  const pageOf = (handler: (request: Request) => Promise<Response>) =>
    new OmniMedia({ proxyURL: 'https://app.example/', maxRetries: 0, fetch: (input, init) => handler(new Request(input, init)) });

  it('a whole-number task_id: onSubmitted hears it as the page\u2019s client reads it, and the page may read its task', async () => {
    answer = JSON.stringify({ task_id: 90210, status: 'pending', model: 'omni-image' });
    const { handler } = proxy();
    const page = pageOf(handler);
    const submission = await page.images.generate({ model: 'omni-image', prompt: 'a fox' });
    expect(submission.task_id).toBe('90210');
    expect(owners.get('90210')).toBe('alice');
    answer = JSON.stringify({ task_id: '90210', status: 'completed', data: [{ url: 'https://files.example/a.png' }] });
    expect((await page.tasks.retrieve('90210')).status).toBe('completed');
  });

  it('an accepted answer without a usable task id: the page gets the answer as it came, and the log says a task may be billed', async () => {
    logs.length = 0;
    for (const body of [{ status: 'pending' }, { task_id: { id: 'x' }, status: 'pending' }, ['task_1']]) {
      answer = JSON.stringify(body);
      const response = await proxy().handler(new Request('https://app.example/v1/images/generations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m","prompt":"p"}' }));
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual(body);
    }
    expect(logs).toEqual([
      expect.stringMatching(/^\[omnimedia\] proxy: the service accepted a submission \(image_generation\) of alice \(202\) without a usable task id \(task_id is required\): onSubmitted was not called, and the task may be billed$/),
      expect.stringMatching(/without a usable task id \(task_id must be a string\)/),
      expect.stringMatching(/without a usable task id \(the answer must be a JSON object\)/),
    ]);
  });
});
