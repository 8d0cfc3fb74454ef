import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { runCli } from './helpers/run.ts';

// What the CLI says about what it sent: a wait's flags are checked by the SDK's own option
// checker before the submission, "nothing was sent" is said only when nothing was, and every
// error after a submission names the task, in text mode too.
const server = useMsw();
const CONN = ['--base-url', BASE_URL, '--api-key', API_KEY];
const submission = { task_id: 'task_1', status: 'pending', model: 'omni-image' };

function countSubmissions(): { posts: number } {
  const seen = { posts: 0 };
  server.use(
    http.post(`${BASE_URL}/v1/images/generations`, () => {
      seen.posts++;
      return HttpResponse.json(submission);
    }),
  );
  return seen;
}

describe('the wait flags are checked before anything is sent', () => {
  it.each([
    [['--timeout', '9999999'], '--timeout', /--timeout: must be a whole number of ms from 1 to 2147483647 \(got 9999999000\); --timeout is in seconds: 9999999 s = 9999999000 ms/],
    [['--interval', '0.0001'], '--interval', /--interval: must be a whole number of ms from 1 to 2147483647 \(got 0\); --interval is in seconds: 0\.0001 s = 0 ms/],
    [['--timeout=-5'], '--timeout', /--timeout: must be a whole number of ms/],
  ])('%j: exit 2 naming the flag, no submission', async (flags, flag, rule) => {
    const seen = countSubmissions();
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--wait', ...flags, ...CONN]);
    expect(run.code).toBe(2);
    expect(seen.posts).toBe(0);
    expect(run.stderr).toContain('error: invalid input, nothing was sent');
    expect(run.stderr).toMatch(rule);
    expect(run.stderr).toContain(flag);
  });

  it('with --json the issue names the flag and the SDK field', async () => {
    const seen = countSubmissions();
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--interval', '0.0001', '--json', ...CONN]);
    expect(run.code).toBe(2);
    expect(seen.posts).toBe(0);
    const { error } = JSON.parse(run.stdout);
    expect(error).toMatchObject({ type: 'ValidationError', exit_code: 2, issues: [expect.objectContaining({ field: 'interval', flag: '--interval' })] });
    expect(error.task_id).toBeUndefined();
  });

  it('tasks wait checks them before its first query', async () => {
    let queries = 0;
    server.use(http.get(`${BASE_URL}/v1/tasks/:id`, () => (queries++, HttpResponse.json({ task_id: 'task_9', status: 'processing' }))));
    const run = await runCli(['tasks', 'wait', 'task_9', '--timeout', '9999999', ...CONN]);
    expect(run.code).toBe(2);
    expect(queries).toBe(0);
    expect(run.stderr).toMatch(/--timeout: must be a whole number of ms/);
  });

  it('a value that is not a number is a usage error naming the flag', async () => {
    const seen = countSubmissions();
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--wait', '--timeout', 'soon', ...CONN]);
    expect(run.code).toBe(2);
    expect(seen.posts).toBe(0);
    expect(run.stderr).toContain('--timeout: must be a number of seconds (got "soon")');
  });
});

describe('after a submission, every error names the task', () => {
  it('an error of the download after the wait prints the task id in text mode, and never "nothing was sent"', async () => {
    countSubmissions();
    // Completed, but its only result URL is relative: nothing can be downloaded.
    server.use(http.get(`${BASE_URL}/v1/tasks/:id`, () => HttpResponse.json({ task_id: 'task_1', status: 'completed', data: [{ url: '/relative.png' }] })));
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--out', '/tmp/omnimedia-cli-never', '--interval', '0.001', ...CONN]);
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBe(70);
    expect(run.stderr).not.toContain('nothing was sent');
    expect(run.stderr).toMatch(/task task_1 was submitted.*omnimedia tasks get task_1/);
  });

  it('a --out that cannot be a directory the results go into is refused before anything is sent (it was refused after the paid submission, 5 requests)', async () => {
    const seen = countSubmissions();
    let queries = 0;
    server.use(http.get(`${BASE_URL}/v1/tasks/:id`, () => (queries++, HttpResponse.json({ task_id: 'task_1', status: 'completed', data: [{ url: 'https://cdn.example/r.png' }] }))));
    const dir = await mkdtemp(join(tmpdir(), 'omnimedia-cli-out-'));
    const existing = join(dir, 'taken.png');
    await writeFile(existing, 'mine');
    try {
      for (const [out, rule] of [
        [existing, /^  --out: "[^"]*taken\.png" is a file: --out takes the directory the results go into/m],
        // A directory that cannot be made: what would be its parent is a file.
        [join(existing, 'results'), /^  --out: "[^"]*results" cannot be made: "[^"]*taken\.png" is a file/m],
      ] as const) {
        const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--out', out, '--interval', '0.001', ...CONN]);
        expect(run.code).toBe(2);
        expect(run.stderr).toContain('error: invalid input, nothing was sent');
        expect(run.stderr).toMatch(rule);
        const json = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--out', out, '--json', ...CONN]);
        expect(json.code).toBe(2);
        expect(JSON.parse(json.stdout).error).toMatchObject({ type: 'ValidationError', exit_code: 2, issues: [expect.objectContaining({ field: 'out', flag: '--out' })] });
        // tasks wait: before its first query.
        const wait = await runCli(['tasks', 'wait', 'task_1', '--out', out, ...CONN]);
        expect(wait.code).toBe(2);
        expect(wait.stderr).toContain('nothing was sent');
      }
      expect(seen.posts).toBe(0);
      expect(queries).toBe(0);
      // The file is untouched.
      expect(await readFile(existing, 'utf8')).toBe('mine');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(process.getuid?.() === 0)('a --out in a directory this user cannot write to is refused before anything is sent', async () => {
    const seen = countSubmissions();
    const dir = await mkdtemp(join(tmpdir(), 'omnimedia-cli-out-'));
    await chmod(dir, 0o500);
    try {
      const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--out', join(dir, 'results'), ...CONN]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--out: "[^"]*results" cannot be made: "[^"]*" is not writable/);
      expect(seen.posts).toBe(0);
    } finally {
      await chmod(dir, 0o700);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a --out directory that does not exist yet is made by the download, after the wait', async () => {
    countSubmissions();
    server.use(
      http.get(`${BASE_URL}/v1/tasks/:id`, () => HttpResponse.json({ task_id: 'task_1', status: 'completed', data: [{ url: 'https://cdn.example/r.png' }] })),
      http.get('https://cdn.example/r.png', () => new HttpResponse(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), { headers: { 'content-type': 'image/png' } })),
    );
    const dir = await mkdtemp(join(tmpdir(), 'omnimedia-cli-out-'));
    try {
      const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--out', join(dir, 'new', 'results'), '--interval', '0.001', ...CONN]);
      expect(run.code).toBe(0);
      expect(await readFile(join(dir, 'new', 'results', 'task_1-0.png'))).toHaveLength(8);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('with --json the error carries task_id', async () => {
    countSubmissions();
    server.use(http.get(`${BASE_URL}/v1/tasks/:id`, () => HttpResponse.json({ task_id: 'task_1', status: 'completed', data: [{ url: '/relative.png' }] })));
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--out', '/tmp/omnimedia-cli-never', '--interval', '0.001', '--json', ...CONN]);
    expect(JSON.parse(run.stdout).error.task_id).toBe('task_1');
  });

  it('a refused upload after another one was sent does not claim nothing was sent', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'omnimedia-cli-'));
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(56).fill(0)]);
    await writeFile(join(dir, 'a.png'), png);
    let uploads = 0;
    let edits = 0;
    server.use(
      http.post(`${BASE_URL}/v1/uploads/images`, () => (uploads++, HttpResponse.json({ url: 'https://uploads.test/a.png' }))),
      http.post(`${BASE_URL}/v1/images/edits`, () => (edits++, HttpResponse.json(submission))),
    );
    // The upload goes out, then the SDK refuses the size.
    const run = await runCli(['images', 'edit', '-m', 'omni-image', '-p', 'night', '--image', join(dir, 'a.png'), '--size', '1000x1000', ...CONN]);
    expect(run.code).toBe(2);
    expect(uploads).toBe(1);
    expect(edits).toBe(0);
    expect(run.stderr).not.toContain('nothing was sent');
    expect(run.stderr).toContain('error: invalid input, no task was submitted');
    expect(run.stderr).toContain('--size: both sides must be multiples of 16');
  });
});
