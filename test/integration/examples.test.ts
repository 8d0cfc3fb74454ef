// Every script in examples/ runs to completion against the mock service (see examples/README.md
// for the contract), and the demo runs offline exactly as `npm run demo` does.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { REDIS_AVAILABLE, RedisServer } from '../helpers/redis-server.ts';
import { everyStep } from '../helpers/teardown.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The repo's own Node 24 runs the examples (type stripping), whichever Node runs vitest.
const node = join(root, 'node_modules', '.bin', 'node');
const hooks = fileURLToPath(new URL('../helpers/examples-resolve.ts', import.meta.url));
const examples = (await readdir(join(root, 'examples'))).filter((name) => name.endsWith('.ts')).sort();

let server: MockServer;
let out: string;
// examples/fleet.ts needs a Redis: a redis-server of the test's own (skipped without one, as the fleet tests are).
const redis = new RedisServer();

beforeAll(async () => {
  server = await startMockServer({ durations: { pending: 100, image: 300, imageEdit: 300, video: 500, videoEdit: 500 } });
  out = await mkdtemp(join(tmpdir(), 'omnimedia-examples-'));
  if (REDIS_AVAILABLE) await redis.start();
});
afterAll(() =>
  everyStep(
    () => server?.close(),
    () => redis.stop(),
    () => rm(out, { recursive: true, force: true }),
  ),
);

function run(script: string, env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  const cleanEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...env })) if (value !== undefined) cleanEnv[key] = value;
  for (const key of Object.keys(cleanEnv)) if (key.startsWith('OMNIMEDIA_') && !(key in env)) delete cleanEnv[key];
  return new Promise((resolve) => {
    execFile(
      node,
      ['--import', hooks, join(root, 'examples', script)],
      { cwd: root, env: cleanEnv, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

// Concurrent: each example is a process that mostly waits on the mock (the wait's 3 s first
// query); one after another they took 37 s of the suite.
describe.concurrent('examples/', () => {
  it('has scripts', () => {
    expect(examples).toContain('demo.ts');
  });

  it.each(examples)('%s runs to completion against the mock service', { timeout: 70_000 }, async (script) => {
    if (script === 'fleet.ts' && !REDIS_AVAILABLE) return; // the helper printed how to run it
    const result = await run(script, {
      OMNIMEDIA_API_KEY: 'sk-examples',
      OMNIMEDIA_BASE_URL: server.url,
      OMNIMEDIA_DEMO_OUT: join(out, script),
      PORT: '0',
      ...(script === 'fleet.ts' ? { REDIS_URL: redis.url } : {}),
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    // A receiver example must have received its task's callback from the mock, not only polled.
    if (script.startsWith('callbacks-')) expect(result.stdout).toMatch(/callback: task_\w+ completed/);
    // A proxy recipe's page got its task through the proxy, without the key.
    if (script.startsWith('proxy-')) expect(result.stdout).toMatch(/page: task_\w+ completed/);
    // The AI SDK example's video generation was ended by its webhook endpoint's delivery.
    if (script === 'ai-sdk.ts') expect(result.stdout).toMatch(/images: task task_\w+, 2 PNGs[\s\S]*webhook: delivery for task_\w+[\s\S]*video: task task_\w+ \(omni_flash_components_720p_4s\)/);
    // The fleet's callback lands on B and ends A's wait.
    // The console exporter's spans, then the trace as a tree: the wait's queries under the wait.
    if (script === 'telemetry.ts')
      expect(result.stdout).toMatch(/name: 'omnimedia\.images\.generate'[\s\S]*make-cover-image +\d+ ms\n├─ omnimedia\.images\.generate[^\n]*\n│  └─ POST \/v1\/images\/generations[^\n]*\n└─ omnimedia\.tasks\.wait[^\n]*task\.status=completed[^\n]*\n   (├|└)─ GET \/v1\/tasks\/\{task_id\}/);
    if (script === 'fleet.ts') expect(result.stdout).toMatch(/B: callback for task_\w+: completed[\s\S]*A: wait ended: task_\w+ completed/);
  });

  it('demo.ts with no key and no base URL runs the whole story offline against the in-process mock', { timeout: 70_000 }, async () => {
    const result = await run('demo.ts', { OMNIMEDIA_DEMO_OUT: join(out, 'offline') });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/offline, against the mock service/);
    for (const stepTitle of ['Upload a photo', 'Edit it', 'Generate a video from both images', 'Wait for it, with progress', 'Receive the completion callback', 'Download the results', 'Summary'])
      expect(result.stdout).toContain(stepTitle);
    expect(result.stdout).toMatch(/attempt 1 at omni-mock-1 failed \(provider_timeout\)/);
    expect(result.stdout).toMatch(/token checked, verified against the task query/);
    const files = await readdir(join(out, 'offline'));
    expect(files.some((f) => f.endsWith('.png'))).toBe(true);
    expect(files.some((f) => f.endsWith('.mp4'))).toBe(true);
  });

  it('demo.ts refuses half a configuration', async () => {
    const result = await run('demo.ts', { OMNIMEDIA_API_KEY: 'sk-x' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Set both OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL/);
  });
});
