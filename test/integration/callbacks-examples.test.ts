// Each callback example runs as its own process (Node 24 from node_modules, 'omnimedia'
// mapped to src/), against a stand-in service on loopback that POSTs a real callback.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCallbackService, type CallbackService } from '../helpers/callback-service.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const NODE = `${root}node_modules/.bin/node`;
const HOOK = fileURLToPath(new URL('../helpers/omnimedia-from-src.mjs', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runExample(file: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['--import', HOOK, `examples/${file}`], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', OMNIMEDIA_LOG: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Bounded: an example that does not end by itself is a failure, not a hang.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let service: CallbackService;
beforeEach(async () => {
  service = await startCallbackService();
  service.autoCompleteAfterMs = 50;
});
afterEach(() => service.close());

describe.each([
  ['callbacks-node-http.ts', 'images', /wait: task_1 completed/],
  ['callbacks-express.ts', 'video', /submitted: task_1/],
  ['callbacks-hono.ts', 'images', /submitted: task_1/],
])('%s', (file, kind, extra) => {
  it('receives the real callback of the task it submitted, verified, and exits', { timeout: 30_000 }, async () => {
    const run = await runExample(file, { OMNIMEDIA_BASE_URL: service.baseURL, OMNIMEDIA_API_KEY: 'sk-example' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/hooks\/omnimedia/);
    expect(run.stdout).toContain(`callback: task_1 completed ${service.baseURL}/files/task_1.png`);
    expect(run.stdout).toMatch(extra);
    expect(service.submissions[0]?.path).toContain(kind === 'video' ? '/v1/video/generate' : '/v1/images/generations');
    // The handler re-read the task from the service before trusting the callback.
    expect(service.queries).toContain('task_1');
  });

  it('with OMNIMEDIA_CALLBACK_SECRET, the callback_url carries the token and the delivery still gets through', { timeout: 30_000 }, async () => {
    const run = await runExample(file, {
      OMNIMEDIA_BASE_URL: service.baseURL,
      OMNIMEDIA_API_KEY: 'sk-example',
      OMNIMEDIA_CALLBACK_SECRET: 'example-secret',
    });
    expect(run.code).toBe(0);
    expect(String(service.submissions[0]?.body.callback_url)).toMatch(/\/hooks\/omnimedia\?omnimedia_token=[\w-]{22}\.[\w-]{43}$/);
    expect(run.stdout).toContain('callback: task_1 completed');
  });
});
