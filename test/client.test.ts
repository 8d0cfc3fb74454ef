import { afterEach, describe, expect, it, vi } from 'vitest';
import DefaultExport, { AuthenticationError, OmniMedia, OmniMediaError, ValidationError, type Logger } from 'omnimedia';
import { TasksClient } from 'omnimedia/tasks';
import { mediaBytes } from './helpers/media-bytes.ts';
import { API_KEY, BASE_URL, useMsw } from './helpers/msw.ts';
import { SUBMISSION, countAllRequests, json, recordRoute } from './helpers/wire.ts';

const server = useMsw();
const TASK = { task_id: 'task_1', status: 'pending' };

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

/** A logger that records every line with its level. */
function recordingLogger() {
  const lines: string[] = [];
  const at = (level: string) => (message: string, ...args: unknown[]) => lines.push(`${level} ${message} ${args.map(String).join(' ')}`);
  const logger: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
  return { lines, logger };
}

describe('new OmniMedia(): environment defaults', () => {
  it('reads OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', 'sk-from-env');
    vi.stubEnv('OMNIMEDIA_BASE_URL', BASE_URL);
    const seen = recordRoute(server, 'post', '/v1/images/generations', json(SUBMISSION));
    const client = new OmniMedia();
    expect(client.hasApiKey).toBe(true);
    expect(client.baseURL).toBe(`${BASE_URL}/`);
    await client.images.generate({ model: 'm', prompt: 'p' });
    expect(seen[0]?.headers.get('authorization')).toBe('Bearer sk-from-env');
  });

  it('options win over the environment', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', 'sk-from-env');
    vi.stubEnv('OMNIMEDIA_BASE_URL', 'https://elsewhere.test');
    const seen = recordRoute(server, 'post', '/v1/images/generations', json(SUBMISSION));
    await new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL }).images.generate({ model: 'm', prompt: 'p' });
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
  });

  it('reads OMNIMEDIA_LOG; an unknown level falls back to warn', async () => {
    recordRoute(server, 'get', '/v1/tasks/:id', json(TASK));
    vi.stubEnv('OMNIMEDIA_LOG', 'debug');
    const debug = recordingLogger();
    await new OmniMedia({ baseURL: BASE_URL, logger: debug.logger }).tasks.retrieve('task_1');
    expect(debug.lines).toEqual([expect.stringMatching(/^debug \[omnimedia\] GET \/v1\/tasks\/task_1 200 in \d+ ms \(attempt 1\)/)]);

    vi.stubEnv('OMNIMEDIA_LOG', 'chatty');
    const quiet = recordingLogger();
    await new OmniMedia({ baseURL: BASE_URL, logger: quiet.logger }).tasks.retrieve('task_1');
    expect(quiet.lines).toEqual([]);
  });

  it('the logLevel option wins over OMNIMEDIA_LOG', async () => {
    recordRoute(server, 'get', '/v1/tasks/:id', json(TASK));
    vi.stubEnv('OMNIMEDIA_LOG', 'debug');
    const off = recordingLogger();
    await new OmniMedia({ baseURL: BASE_URL, logger: off.logger, logLevel: 'off' }).tasks.retrieve('task_1');
    expect(off.lines).toEqual([]);
  });
});

describe('new OmniMedia(): the base URL', () => {
  it('missing → an error naming OMNIMEDIA_BASE_URL', () => {
    vi.stubEnv('OMNIMEDIA_BASE_URL', '');
    expect(() => new OmniMedia({ apiKey: API_KEY })).toThrow(OmniMediaError);
    expect(() => new OmniMedia({ apiKey: API_KEY })).toThrow(/OMNIMEDIA_BASE_URL/);
  });

  it.each(['not a url', 'ftp://files.test', '/v1'])('%s → an error', (baseURL) => {
    expect(() => new OmniMedia({ baseURL })).toThrow(/baseURL: must be an absolute http\(s\) URL/);
  });

  // Suspicion proven: `${baseURL}${path}` put every path inside the query (`/?x=1/v1/tasks/t`),
  // and after `#x` fetch dropped the path, so every call reached the service's root. The proxy
  // already refused both; fetch refuses a URL with credentials, so it only ever failed later.
  it('a query, a fragment or credentials in it reached the wrong URL: now refused at construction, naming baseURL and the rule', async () => {
    const seen: string[] = [];
    const fetch = async (input: Request | string | URL) => (seen.push(String(input instanceof Request ? input.url : input)), Response.json(TASK));
    for (const baseURL of [`${BASE_URL}/?region=eu`, `${BASE_URL}/v2#x`, `${BASE_URL}/?`, 'https://user:pass@api.omnimedia.test']) {
      const error = (() => {
        try {
          return new OmniMedia({ baseURL, fetch });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, baseURL).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues).toEqual([{ path: 'baseURL', message: 'must not hold a user name, a password, a query or a fragment' }]);
      expect(() => new TasksClient({ baseURL, fetch })).toThrow(/baseURL: must not hold a user name, a password, a query or a fragment/);
    }
    vi.stubEnv('OMNIMEDIA_BASE_URL', `${BASE_URL}/?x=1`);
    expect(() => new OmniMedia()).toThrow(/baseURL: must not hold/);
    expect(seen).toEqual([]);
  });

  it('keeps a path prefix, with or without a trailing slash', async () => {
    const seen = recordRoute(server, 'get', '/gateway/v1/tasks/:id', json({ ...TASK, task_id: 'a' }), json({ ...TASK, task_id: 'b' }));
    await new OmniMedia({ baseURL: `${BASE_URL}/gateway` }).tasks.retrieve('a');
    await new OmniMedia({ baseURL: `${BASE_URL}/gateway/` }).tasks.retrieve('b');
    expect(seen.map((r) => r.path)).toEqual(['/gateway/v1/tasks/a', '/gateway/v1/tasks/b']);
  });
});

describe('a keyless client', () => {
  it('retrieves tasks', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', '');
    const seen = recordRoute(server, 'get', '/v1/tasks/:id', json(TASK));
    const client = new OmniMedia({ baseURL: BASE_URL });
    expect(client.hasApiKey).toBe(false);
    expect(await client.tasks.retrieve('task_1')).toEqual(TASK);
    expect(seen[0]?.headers.has('authorization')).toBe(false);
  });

  it('fails submissions and uploads locally with AuthenticationError, sending nothing', async () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', '');
    const requests = countAllRequests(server);
    const client = new OmniMedia({ baseURL: BASE_URL });
    const calls = [
      () => client.images.generate({ model: 'm', prompt: 'p' }),
      () => client.images.edit({ model: 'm', prompt: 'p', image: 'https://u/a.png' }),
      () => client.videos.generate({ prompt: 'p' }),
      () => client.videos.edit({ prompt: 'p', input_video: 'up_1' }),
      () => client.uploads.image(mediaBytes('png')),
      () => client.uploads.video(mediaBytes('mp4')),
    ];
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ status: undefined, message: expect.stringMatching(/needs an API key.*OMNIMEDIA_API_KEY.*No request was sent/) });
    }
    expect(requests.count).toBe(0);
  });
});

describe('the browser guard', () => {
  const pretendBrowser = () => {
    vi.stubGlobal('window', globalThis);
    vi.stubGlobal('document', { createElement: () => ({}) });
  };

  it('a keyless client is fine in a browser', () => {
    vi.stubEnv('OMNIMEDIA_API_KEY', '');
    pretendBrowser();
    expect(() => new OmniMedia({ baseURL: BASE_URL })).not.toThrow();
  });

  it('a key in a browser throws without the opt-in, and says why', () => {
    pretendBrowser();
    expect(() => new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL })).toThrow(/dangerouslyAllowBrowser/);
    expect(() => new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL })).toThrow(/anyone who opens the page/);
  });

  it('a key in a browser is allowed with dangerouslyAllowBrowser', () => {
    pretendBrowser();
    expect(() => new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, dangerouslyAllowBrowser: true })).not.toThrow();
  });

  it('the key-in-browser error never contains the key', () => {
    pretendBrowser();
    const error = (() => {
      try {
        new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).not.toContain(API_KEY);
  });

  it('plain Node (no window/document) needs no opt-in', () => {
    expect(() => new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL })).not.toThrow();
  });
});

describe('transport options', () => {
  it('uses a custom fetch for every request', async () => {
    const requests = countAllRequests(server);
    const seen: string[] = [];
    const fetch = vi.fn(async (input: Request | string | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const auth = request.headers.get('authorization');
      seen.push(`${request.method} ${new URL(request.url).pathname} ${auth} ${await request.text()}`);
      return Response.json(request.method === 'GET' ? TASK : SUBMISSION);
    });
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, fetch });
    await client.images.generate({ model: 'm', prompt: 'p' });
    await client.tasks.retrieve('task_1');
    expect(seen).toEqual([
      `POST /v1/images/generations Bearer ${API_KEY} {"model":"m","prompt":"p"}`,
      'GET /v1/tasks/task_1 null ',
    ]);
    expect(requests.count).toBe(0);
  });

  it('sends defaultHeaders with submissions and task queries', async () => {
    const posts = recordRoute(server, 'post', '/v1/images/generations', json(SUBMISSION));
    const gets = recordRoute(server, 'get', '/v1/tasks/:id', json(TASK));
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, defaultHeaders: { 'x-team': 'blue' } });
    await client.images.generate({ model: 'm', prompt: 'p' });
    await client.tasks.retrieve('task_1');
    expect(posts[0]?.headers.get('x-team')).toBe('blue');
    expect(gets[0]?.headers.get('x-team')).toBe('blue');
    expect(posts[0]?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
  });

  it.each([
    ['timeout', -1],
    ['timeout', 1.5],
    ['timeout', Number.NaN],
    ['timeout', 0],
    ['timeout', 2 ** 31],
    ['uploadTimeout', -5],
    ['uploadTimeout', 0],
    ['maxRetries', -1],
    ['maxRetries', 0.5],
    ['maxRetries', Number.POSITIVE_INFINITY],
  ] as const)('%s %s is rejected at construction', (name, value) => {
    // Every option is checked in one place (option-checks.ts), with one error type naming it.
    expect(() => new OmniMedia({ baseURL: BASE_URL, [name]: value })).toThrow(ValidationError);
    expect(() => new OmniMedia({ baseURL: BASE_URL, [name]: value })).toThrow(new RegExp(`new OmniMedia options: ${name}: must be`));
  });

  it('maxRetries 0 is allowed', () => {
    expect(() => new OmniMedia({ baseURL: BASE_URL, maxRetries: 0 })).not.toThrow();
  });

  it('is the default export too', () => {
    expect(DefaultExport).toBe(OmniMedia);
  });
});

describe('proxyURL given empty', () => {
  it('is a ValidationError naming proxyURL, not baseURL (the caller never gave a baseURL)', () => {
    vi.stubEnv('OMNIMEDIA_BASE_URL', '');
    expect(() => new OmniMedia({ proxyURL: '' })).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'proxyURL' })] }));
    vi.unstubAllEnvs();
  });
});
