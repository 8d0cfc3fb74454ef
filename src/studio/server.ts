/**
 * `npx omnimedia studio`: a local web app on 127.0.0.1 (DESIGN 15). One `node:http` server
 * mounts `omnimedia/proxy` at `/api/omnimedia` (every call of the page: submissions, uploads,
 * task events), serves the page's built files (by a fixed list of names) and the results in
 * `DIR/results/` (by name from the journal, never by a path from the request), behind the
 * checks of guard.ts. The key is the server's client's and the proxy's: no response carries it.
 */
import { readFile, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OmniMedia } from 'omnimedia';
import { createProxy } from 'omnimedia/proxy';
import type { MockServer, MockServerOptions } from 'omnimedia/testing';
import { StudioGuard, newToken } from './guard.ts';
import { SUBMISSIONS, StudioJobs } from './jobs.ts';
import { StudioJournal, type StudioJob } from './journal.ts';

/** Where the proxy is mounted; the page's client has it as its `proxyURL`. */
export const PROXY_PATH = '/api/omnimedia';

/** Options of {@link startStudio}. */
export interface StudioOptions {
  /** `DIR`: the journal and the downloads. */
  dir: string;
  /** Default 0: a free one. */
  port?: number;
  /** The service's key and address (the CLI's flags or environment); not with `mock`. */
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  /** Run the package's mock service in this process and use it (`--mock`); its options, or `true`. */
  mock?: boolean | MockServerOptions;
  /** The page's built files (index.html, app.js, app.css). Default: `dist/studio/` beside the bin. */
  assetsDir?: string;
  /** The token; default a new random one. */
  token?: string;
  /** Where warnings go. Default stderr. */
  warn?: (message: string) => void;
}

/** A running studio. */
export interface RunningStudio {
  /** `http://127.0.0.1:<port>/?token=<token>`: what the user opens. */
  url: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  token: string;
  /** The mock service, under `mock`. */
  mock?: MockServer;
  /** Stop serving and following; the journal stays consistent (every line is whole). */
  close(): Promise<void>;
}

const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
};

/** On every answer: nothing cached, sniffed, framed or referred. */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/** The page's policy: its own files, its own results; nothing from anywhere else. */
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

function answer(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8', headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, ...headers });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) => answer(res, status, JSON.stringify(value), 'application/json');

/** The page's files, read once at start (a missing build is a clear error, not a 404 later). */
async function readAssets(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const { file } of Object.values(ASSETS)) {
    try {
      files.set(file, await readFile(join(dir, file)));
    } catch {
      throw new Error(`the studio's page is not built (${join(dir, file)} is missing): npm run build`);
    }
  }
  return files;
}

/** Serve a result: the job's `index`-th file, by the name the journal holds. */
async function serveResult(jobs: StudioJobs, dir: string, taskId: string, index: number, download: boolean, res: ServerResponse): Promise<void> {
  const job = await jobs.settled(taskId);
  const name = job?.files?.[index];
  if (!job || name === undefined) return json(res, 404, { error: { message: `no file ${index} for ${taskId}${job?.error ? `: ${job.error}` : ''}` } });
  const path = join(dir, 'results', name);
  const size = (await stat(path)).size;
  const type = MEDIA_TYPES[name.slice(name.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': type,
    'content-length': String(size),
    'content-disposition': `${download ? 'attachment' : 'inline'}; filename="${name}"`,
  });
  createReadStream(path).pipe(res);
}

/** Start the studio: take `dir`, start the mock if asked, listen on 127.0.0.1. */
export async function startStudio(options: StudioOptions): Promise<RunningStudio> {
  const warn = options.warn ?? ((message: string) => void process.stderr.write(`${message}\n`));
  const assets = await readAssets(options.assetsDir ?? fileURLToPath(new URL('./studio/', import.meta.url)));
  const dir = resolve(options.dir);
  const token = options.token ?? newToken();
  let port = options.port ?? 0;
  const guard = new StudioGuard(token, () => port);
  const journal = await StudioJournal.open(dir, { warn });
  let mock: MockServer | undefined;
  try {
    let apiKey = options.apiKey;
    let baseURL = options.baseURL;
    if (options.mock) {
      const { startMockServer } = await import('omnimedia/testing');
      mock = await startMockServer(options.mock === true ? {} : options.mock);
      // Any key works on the mock; this one is never shown (the tests look for it in every answer).
      apiKey = `sk-mock-${newToken().slice(0, 24)}`;
      baseURL = mock.url;
    }
    if (!apiKey || !baseURL) throw new Error('the studio needs OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL (or --api-key and --base-url), or --mock to try it without a key');
    const client = new OmniMedia({ apiKey, baseURL });
    const proxy = createProxy({ apiKey, baseURL, basePath: PROXY_PATH, authorize: () => ({ id: 'studio' }), events: { perIdentity: 256 }, logger: { warn, error: warn, info: () => {}, debug: () => {} } });
    const jobs = new StudioJobs(journal, client, warn);
    const shownBaseURL = mock ? mock.url : undefined;

    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const refusal = guard.site(req.headers);
      if (refusal) return answer(res, refusal.status, refusal.message);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = req.method ?? 'GET';
      const given = url.pathname === '/' ? url.searchParams.get('token') ?? undefined : undefined;
      if (given !== undefined && method === 'GET') {
        // The URL's token becomes the cookie, and leaves the address bar (and the history).
        if (!guard.isToken(given)) return answer(res, 401, 'Unauthorized: this is not the token the studio printed');
        res.writeHead(303, { ...SECURITY_HEADERS, location: '/', 'set-cookie': guard.cookie(token) });
        return void res.end();
      }
      const missing = guard.credential(req.headers);
      if (missing) return answer(res, missing.status, missing.message, 'text/plain; charset=utf-8', missing.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
      // The browser asks for an icon by itself; the studio has none.
      if (url.pathname === '/favicon.ico') return answer(res, 204, '');
      const asset = ASSETS[url.pathname];
      if (asset && method === 'GET')
        return answer(res, 200, (assets.get(asset.file) as Buffer).toString('utf8'), asset.type, asset.file === 'index.html' ? { 'content-security-policy': PAGE_POLICY } : {});
      if (url.pathname.startsWith(`${PROXY_PATH}/`)) {
        for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (name !== 'cache-control') res.setHeader(name, value);
        const op = method === 'POST' ? SUBMISSIONS[url.pathname.slice(PROXY_PATH.length + 1)] : undefined;
        if (op) return jobs.submit(op, req, res, (request, response) => proxy.nodeHandler(request, response));
        return proxy.nodeHandler(req, res);
      }
      if (url.pathname === '/studio/jobs' && method === 'GET') return json(res, 200, { jobs: jobs.jobs().reverse() satisfies StudioJob[], baseURL: shownBaseURL, mock: mock !== undefined });
      const result = /^\/studio\/results\/([A-Za-z0-9_-]{1,128})\/(\d{1,2})$/.exec(url.pathname);
      if (result && method === 'GET') return serveResult(jobs, dir, result[1] as string, Number(result[2]), url.searchParams.has('download'), res);
      return json(res, 404, { error: { message: `not found: ${method} ${url.pathname}` } });
    };

    const server = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        warn(`omnimedia studio: ${req.method} ${req.url?.replace(/token=[^&]*/, 'token=…')}: ${(error as Error).message}`);
        if (res.headersSent) return void res.destroy();
        json(res, 500, { error: { message: 'the studio failed to answer; see its terminal' } });
      });
    });
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(port, '127.0.0.1', () => done());
    });
    port = (server.address() as AddressInfo).port;
    const origin = `http://127.0.0.1:${port}`;
    await journal.announce(origin);
    jobs.resume();
    return {
      url: `${origin}/?token=${token}`,
      origin,
      port,
      token,
      ...(mock ? { mock } : {}),
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((done) => server.close(() => done()));
        await jobs.close();
        await journal.close();
        await mock?.close();
      },
    };
  } catch (error) {
    await journal.close();
    await mock?.close();
    throw error;
  }
}
