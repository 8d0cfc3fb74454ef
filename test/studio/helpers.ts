// What the studio's tests share: the page built once per file (the real build, into a
// temporary directory), a raw HTTP request whose every header the test chooses (fetch does
// not let a test choose Host), and a studio started on a temporary DIR.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildStudioPage } from '../../scripts/build-studio.ts';

let built: Promise<string> | undefined;

/** The page, built by the package's build script into a temporary directory (once per file). */
export function builtPage(): Promise<string> {
  built ??= mkdtemp(join(tmpdir(), 'omnimedia-studio-page-')).then(async (dir) => (await buildStudioPage(dir)).dir);
  return built;
}

/** A temporary DIR for a studio. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'omnimedia-studio-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** An answer as read off the socket. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request to 127.0.0.1:`port` with exactly `headers` (Host included). */
export function raw(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...options.headers }, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
