import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { everyStep } from '../helpers/teardown.ts';
import { runCli } from './helpers/run.ts';

// Paid work is never sent for a run that will refuse to finish it: a --out that cannot be the
// directory the results go into is found before the submission (it was found by the download,
// after the POST, the wait and its queries: 5 requests, and the task billed).
let server: MockServer | undefined;
let dir: string | undefined;

beforeAll(async () => {
  server = await startMockServer({ durations: { pending: 10, image: 20 }, callbackRetryDelays: [] });
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-cli-out-'));
});
afterAll(() => everyStep(() => server?.close(), () => dir !== undefined && rm(dir, { recursive: true, force: true })));

describe('--out is checked before the submission, against the mock service', () => {
  it('an existing file: exit 2, "nothing was sent", and no request at all', async () => {
    const existing = join(dir!, 'taken.png');
    await writeFile(existing, 'mine');
    server!.mock.clearRequests();
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--out', existing, '--interval', '0.01', '--base-url', server!.url, '--api-key', 'sk-mock']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nothing was sent');
    expect(server!.mock.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(server!.mock.requests).toHaveLength(0);
    expect(await readFile(existing, 'utf8')).toBe('mine');
  });

  it('a directory to be made: the task is submitted, waited for and saved there', async () => {
    server!.mock.clearRequests();
    const out = join(dir!, 'made', 'here');
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--out', out, '--interval', '0.01', '--json', '--base-url', server!.url, '--api-key', 'sk-mock']);
    expect(run.code).toBe(0);
    expect(server!.mock.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    const [saved] = JSON.parse(run.stdout).downloaded as { path: string }[];
    expect(saved?.path.startsWith(out)).toBe(true);
  });
});
