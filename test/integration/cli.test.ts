import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { CLI_PATH, buildCli, runBuilt, runProcess } from '../cli/helpers/built-cli.ts';

// The BUILT bin (dist/cli.js, as npm installs it) spawned against the mock service on a real
// local HTTP server: every command, JSON shapes, exit codes, a terminal run, Ctrl-C.
let server: MockServer;
let env: Record<string, string>;
let dir: string;
const FAST = ['--interval', '0.1'];
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];

beforeAll(async () => {
  await buildCli();
  server = await startMockServer({ durations: { pending: 100, image: 300, imageEdit: 300, video: 400, videoEdit: 400 } });
  env = { OMNIMEDIA_BASE_URL: server.url, OMNIMEDIA_API_KEY: 'sk-e2e' };
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-cli-e2e-'));
}, 180_000);

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  server.mock.reset();
});

describe('the built CLI against the mock service', () => {
  it('images generate --wait --out --json: the finished task with its downloaded files', async () => {
    const run = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'a lighthouse', '--size', '1024x640', '-n', '2', '--out', dir, '--json', ...FAST], { env });
    expect(run.stderr).toContain('✔');
    expect(run.code).toBe(0);
    const task = JSON.parse(run.stdout);
    expect(task).toMatchObject({ status: 'completed', data: [{ url: expect.any(String) }, { url: expect.any(String) }] });
    expect(task.downloaded).toHaveLength(2);
    const bytes = await readFile(task.downloaded[0].path);
    expect([...bytes.subarray(0, 4)]).toEqual(PNG_SIGNATURE);
    expect(bytes.length).toBe(task.downloaded[0].bytes);
  });

  it('images generate without --wait: the submission, then tasks get and tasks wait by id', async () => {
    const submitted = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--json'], { env });
    expect(submitted.code).toBe(0);
    const submission = JSON.parse(submitted.stdout);
    expect(submission).toMatchObject({ task_id: expect.any(String), status: 'pending' });
    // Task queries need no key.
    const keyless = { OMNIMEDIA_BASE_URL: server.url };
    const got = await runBuilt(['tasks', 'get', submission.task_id, '--json'], { env: keyless });
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout).task_id).toBe(submission.task_id);
    const waited = await runBuilt(['tasks', 'wait', submission.task_id, '--json', ...FAST], { env: keyless });
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ task_id: submission.task_id, status: 'completed' });
  });

  it('uploads image, then images edit of a local file (uploaded first) and of the upload URL', async () => {
    const made = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'a cat', '--out', dir, '--json', ...FAST], { env });
    const photo: string = JSON.parse(made.stdout).downloaded[0].path;
    const uploaded = await runBuilt(['uploads', 'image', photo, '--json'], { env });
    expect(uploaded.code).toBe(0);
    const record = JSON.parse(uploaded.stdout);
    expect(record).toMatchObject({ url: expect.any(String), content_type: 'image/png', width: expect.any(Number), expires_at: expect.any(Number) });
    const edited = await runBuilt(['images', 'edit', '-m', 'omni-image', '-p', 'at night', '-i', photo, '-i', record.url, '--wait', '--json', ...FAST], { env });
    expect(edited.stderr).toMatch(/uploaded .*\.png/);
    expect(edited.code).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ status: 'completed' });
  });

  it('videos generate (image to video), uploads video, videos edit of a local file', async () => {
    const made = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'a boat', '--out', dir, '--json', ...FAST], { env });
    const photo: string = JSON.parse(made.stdout).downloaded[0].path;
    const video = await runBuilt(['videos', 'generate', '-p', 'the boat sails', '-i', photo, '--seconds', '4', '-r', '1080p', '--out', dir, '--json', ...FAST], { env });
    expect(video.code).toBe(0);
    const task = JSON.parse(video.stdout);
    expect(task).toMatchObject({ status: 'completed', model: 'omni_flash_components' });
    const clip: string = task.downloaded[0].path;
    expect(clip).toMatch(/\.mp4$/);
    const uploaded = await runBuilt(['uploads', 'video', clip, '--json'], { env });
    expect(uploaded.code).toBe(0);
    expect(JSON.parse(uploaded.stdout)).toMatchObject({ upload_id: expect.any(String) });
    const edited = await runBuilt(['videos', 'edit', '-p', 'make it snow', '--video', clip, '--wait', '--json', ...FAST], { env });
    expect(edited.code).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ status: 'completed' });
  });

  it('exit 1 for a failed task, with the fail reason', async () => {
    server.mock.failNextTask('provider_error');
    const run = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'x', '--wait', '--json', ...FAST], { env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error).toMatchObject({ type: 'TaskFailedError', fail_reason: 'provider_error', task_id: expect.any(String) });
  });

  it('exit 2 for a validation error, naming the flag and the rule, with nothing sent', async () => {
    const run = await runBuilt(['videos', 'generate', '-p', 'x', '--seconds', '5', '--resolution', '8K'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--seconds: must be one of');
    expect(run.stderr).toContain('--resolution: must be one of "720p", "1080p" or "4K"');
    expect(server.mock.tasks()).toEqual([]);
  });

  it('exit 2 for a wait flag the SDK refuses, checked by its option checker before the submission', async () => {
    // The checker is bundled into the bin; the ValidationError it throws must be the library's
    // own class (exit 2), not a second copy (exit 70).
    const run = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'x', '--wait', '--timeout', '9999999'], { env });
    expect(run.stderr).toContain('error: invalid input, nothing was sent');
    expect(run.stderr).toContain('--timeout: must be a whole number of ms');
    expect(run.code).toBe(2);
    expect(server.mock.tasks()).toEqual([]);
  });

  it('exit 3 for an API error (402), with the status', async () => {
    server.mock.forceStatus(402);
    const run = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'x', '--json'], { env });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout).error).toMatchObject({ type: 'InsufficientBalanceError', status: 402 });
  });

  it('exit 4 when the wait times out, with the task id to resume', async () => {
    server.mock.setDurations({ image: 60_000 });
    const run = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'x', '--wait', '--timeout', '0.5', ...FAST], { env });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/omnimedia tasks wait \S+/);
  });

  it('Ctrl-C while waiting stops, prints the task id, exits 130', async () => {
    server.mock.setDurations({ image: 60_000 });
    let sent = false;
    const run = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'x', '--wait', ...FAST], {
      env,
      onStderr: (text, child) => {
        if (!sent && /processing|pending/.test(text)) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(run.code).toBe(130);
    // The built bin lives in this repository's node_modules: a project's install, run with npx.
    const id = /Resume with: npx omnimedia tasks wait (\S+)/.exec(run.stderr)?.[1];
    expect(id).toBeDefined();
    expect(server.mock.task(id!)).toBeDefined();
  });

  it('on a terminal, shows a live line with spinner, status, elapsed time and attempt', async () => {
    const command = [process.execPath, CLI_PATH, 'images', 'generate', '-m', 'omni-image', '-p', 'x', '--wait', ...FAST].join(' ');
    // util-linux `script` runs the CLI on a pseudo-terminal, as a person would see it.
    const run = await runProcess('script', ['-qfec', command, '/dev/null'], { env: { ...env, COLUMNS: '100' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] task_\S+ · (pending|processing) · \d+\.\ds/);
    expect(run.stdout).toContain('· attempt 1');
    // Redrawn in place: carriage return and erase, not one line per tick.
    expect(run.stdout).toContain('\r\x1b[J');
    expect(run.stdout).toMatch(/✔ task_\S+ completed in \d+\.\ds/);
  });

  it('on a terminal, shows a bar for each upload and download', async () => {
    const made = await runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'a cat', '--out', dir, '--json', ...FAST], { env });
    const photo: string = JSON.parse(made.stdout).downloaded[0].path;
    const out = join(dir, 'tty');
    const command = [process.execPath, CLI_PATH, 'images', 'edit', '-m', 'omni-image', '-p', 'night', '-i', photo, '--out', out, ...FAST].join(' ');
    const run = await runProcess('script', ['-qfec', command, '/dev/null'], { env: { ...env, COLUMNS: '120' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/uploading \S+\.png [█░]{20} +\d+% /);
    expect(run.stdout).toMatch(/downloading \S+\.png [█░]{20} 100% /);
  });

  it('mock: serves the service on a port and prints its base URL; Ctrl-C stops it', async () => {
    let baseURL = '';
    let submitted: Awaited<ReturnType<typeof runBuilt>> | undefined;
    const mock = await runBuilt(['mock', '--port', '0', '--json'], {
      onStdout: (text, child) => {
        if (baseURL || !text.trim().endsWith('}')) return;
        baseURL = JSON.parse(text).base_url;
        void runBuilt(['images', 'generate', '-m', 'omni-image', '-p', 'x', '--json'], {
          env: { OMNIMEDIA_BASE_URL: baseURL, OMNIMEDIA_API_KEY: 'any' },
        }).then((result) => {
          submitted = result;
          child.kill('SIGINT');
        });
      },
    });
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(submitted?.code).toBe(0);
    expect(JSON.parse(submitted!.stdout).task_id).toEqual(expect.any(String));
    expect(mock.code).toBe(0);
    expect(mock.stderr).toContain('mock service stopped');
  });

  it('its hints name the command as installed: npx omnimedia in a project, omnimedia from a global install', async () => {
    // A global install as npm lays it out: <prefix>/lib/node_modules/omnimedia, <prefix>/bin/omnimedia linked to its bin.
    const prefix = await mkdtemp(join(tmpdir(), 'omnimedia-global-'));
    const installed = join(prefix, 'lib', 'node_modules', 'omnimedia');
    await cp(dirname(dirname(CLI_PATH)), installed, { recursive: true });
    await mkdir(join(prefix, 'bin'));
    await symlink(join(installed, 'dist', 'cli.js'), join(prefix, 'bin', 'omnimedia'));
    const hint = (run: { stderr: string }) => /to try things locally: (.*) mock\)/.exec(run.stderr)?.[1];
    try {
      expect(hint(await runProcess(process.execPath, [join(prefix, 'bin', 'omnimedia'), 'images', 'generate', '-m', 'm', '-p', 'p']))).toBe('omnimedia');
      // This repository's node_modules, with package.json above it: a project's install.
      expect(hint(await runBuilt(['images', 'generate', '-m', 'm', '-p', 'p']))).toBe('npx omnimedia');
      // Started by npx (npm sets npm_config_user_agent), wherever the bin is.
      const byNpx = await runProcess(process.execPath, [join(prefix, 'bin', 'omnimedia'), 'images', 'generate', '-m', 'm', '-p', 'p'], {
        env: { npm_config_user_agent: 'npm/11.6.2 node/v24.21.0 linux x64 workspaces/false' },
      });
      expect(hint(byNpx)).toBe('npx omnimedia');
    } finally {
      await rm(prefix, { recursive: true, force: true });
    }
  });

  // An ES import of node:http reads its lazy exports (WebSocket...), which load undici: every
  // command took 17 MiB more RSS (`omnimedia --version`: 62 MiB, 50 without). Only `mcp --http` needs it.
  it('a command that sends nothing loads neither node:http nor undici', async () => {
    const jobs = join(dir, 'no-http.jsonl');
    await writeFile(jobs, `${JSON.stringify({ id: 'a', op: 'images.generate', params: { model: 'omni-image', prompt: 'x' } })}\n`);
    const listLoaded = 'data:text/javascript,process.on("exit",()=>process.stderr.write(`loaded ${JSON.stringify(process.moduleLoadList.filter((m)=>/http|undici/.test(m)))}\\n`))';
    for (const args of [['--version'], ['batch', jobs, '--dry-run', '--json']]) {
      const run = await runProcess(process.execPath, ['--import', listLoaded, CLI_PATH, ...args]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr, args.join(' ')).toContain('loaded []');
    }
  });
});
