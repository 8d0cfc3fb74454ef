import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { sniffMediaType } from 'omnimedia/schemas';
import { runCli } from './helpers/run.ts';

// The commands in-process against MSW: what each sends, prints and exits with. The spawned,
// built CLI against the mock service is tested in test/integration/cli.test.ts.
const server = useMsw();
const CONN = ['--base-url', BASE_URL, '--api-key', API_KEY];
const FAST = ['--interval', '0.001'];
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(56).fill(0)]);
const MP4 = Uint8Array.from([0, 0, 0, 0x18, ...Buffer.from('ftypisom'), ...new Array(52).fill(0)]);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-cli-'));
});

const submission = { task_id: 'task_1', status: 'pending', model: 'omni-image', created_at: 1_800_000_000 };
const done = (id = 'task_1') => ({
  task_id: id,
  status: 'completed',
  attempt_count: 1,
  attempts: [{ attempt_no: 1, provider: 'p1', status: 'completed', elapsed_s: 3 }],
  data: [{ url: `${BASE_URL}/files/${id}.png` }],
});

/** A task that is `pending` for the first `pendingPolls` queries, then `final`. */
function scriptedTask(final: Record<string, unknown>, pendingPolls = 1) {
  let polls = 0;
  return http.get(`${BASE_URL}/v1/tasks/:id`, ({ params }) =>
    HttpResponse.json(polls++ < pendingPolls ? { task_id: params.id, status: 'processing', attempt_count: 1 } : final),
  );
}

describe('images generate', () => {
  it('--json prints exactly the submission as JSON on stdout', async () => {
    let body: unknown;
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(submission);
      }),
    );
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', '--size', '1024x640', '-n', '2', '--json', ...CONN]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(submission);
    expect(body).toEqual({ model: 'omni-image', prompt: 'a fox', size: '1024x640', n: 2 });
    expect(run.stderr).toContain('omnimedia tasks wait task_1');
  });

  it('prints the submission for a person, with how to follow it on stderr', async () => {
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json(submission)));
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '-p', 'a fox', ...CONN]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^task_id\s+task_1$/m);
    expect(run.stdout).toMatch(/^created_at\s+2027-01-15T08:00:00.000Z \(1800000000\)$/m);
    expect(run.stdout).not.toContain('tasks wait');
  });

  it('a validation error exits 2, names the flag and the rule, and sends nothing', async () => {
    let sent = 0;
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => (sent++, HttpResponse.json(submission))));
    const run = await runCli(['images', 'generate', '-m', 'omni-image', '--size', '1000x1000', '-n', 'five', '--quality', 'ultra', ...CONN]);
    expect(run.code).toBe(2);
    expect(sent).toBe(0);
    expect(run.stderr).toContain('--prompt: is required');
    expect(run.stderr).toContain('--size: both sides must be multiples of 16 (got 1000x1000)');
    expect(run.stderr).toContain('--n: must be an integer from 1 to 4');
    expect(run.stderr).toContain('--quality: must be one of "low", "medium", "high" or "auto"');
    expect(run.stdout).toBe('');
  });

  it('--json puts a validation error on stdout with field, flag and rule', async () => {
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--callback-url', 'ftp://x', '--json', ...CONN]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: expect.objectContaining({
        type: 'ValidationError',
        exit_code: 2,
        issues: [{ field: 'callback_url', flag: '--callback-url', message: 'must be an absolute http(s) URL' }],
      }),
    });
  });

  it('an API error exits 3 with the status and the raw body', async () => {
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json({ error: { message: 'no balance' } }, { status: 402 })));
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--json', ...CONN]);
    expect(run.code).toBe(3);
    const { error } = JSON.parse(run.stdout);
    expect(error).toMatchObject({ type: 'InsufficientBalanceError', status: 402, body: { error: { message: 'no balance' } }, exit_code: 3 });
    expect(run.stderr).toMatch(/^error: .*status 402/m);
  });

  it('without a key, exits 3 before sending, like the SDK', async () => {
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--base-url', BASE_URL]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('needs an API key');
  });

  it('without a base URL, exits 2 and says how to set one', async () => {
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--base-url URL or set OMNIMEDIA_BASE_URL');
  });

  it('reads the key and address from the environment', async () => {
    let auth: string | null = null;
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, ({ request }) => {
        auth = request.headers.get('authorization');
        return HttpResponse.json(submission);
      }),
    );
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p'], {
      env: { OMNIMEDIA_BASE_URL: BASE_URL, OMNIMEDIA_API_KEY: 'sk-from-env' },
    });
    expect(run.code).toBe(0);
    expect(auth).toBe('Bearer sk-from-env');
  });

  it('--wait polls to the end and prints the task; --out downloads every result', async () => {
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json(submission)),
      scriptedTask({ ...done(), data: [{ url: `${BASE_URL}/files/a.png` }, { url: `${BASE_URL}/files/b.png` }] }),
      http.get(`${BASE_URL}/files/:name`, ({ params }) => new HttpResponse(`bytes of ${String(params.name)}`, { headers: { 'content-type': 'image/png' } })),
    );
    const out = join(dir, 'results');
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--out', out, '--json', ...FAST, ...CONN]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.status).toBe('completed');
    expect(result.downloaded).toEqual([
      { url: `${BASE_URL}/files/a.png`, path: join(out, 'task_1-0.png'), bytes: 14 },
      { url: `${BASE_URL}/files/b.png`, path: join(out, 'task_1-1.png'), bytes: 14 },
    ]);
    expect(await readFile(join(out, 'task_1-1.png'), 'utf8')).toBe('bytes of b.png');
    // Not a terminal: one plain line per change on stderr.
    expect(run.stderr).toContain('task_1 · processing');
    expect(run.stderr).toContain('✔ task_1 completed');
    expect(run.stderr).not.toMatch(/\x1b/);
  });
});

describe('waiting outcomes', () => {
  beforeEach(() => {
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json(submission)));
  });

  it('a failed task exits 1 with the fail reason and the task', async () => {
    server.use(
      scriptedTask({
        task_id: 'task_1',
        status: 'failed',
        attempts: [{ attempt_no: 1, status: 'failed', fail_reason: 'provider_timeout' }],
      }),
    );
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--wait', '--json', ...FAST, ...CONN]);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout);
    expect(error).toMatchObject({ type: 'TaskFailedError', task_id: 'task_1', fail_reason: 'provider_timeout', task: { status: 'failed' } });
    expect(run.stderr).toContain('task task_1 ended with status "failed" (provider_timeout)');
  });

  it('a wait past --timeout exits 4 and says how to resume', async () => {
    server.use(http.get(`${BASE_URL}/v1/tasks/:id`, () => HttpResponse.json({ task_id: 'task_1', status: 'processing' })));
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--wait', '--timeout', '0.05', ...FAST, ...CONN]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('Resume with: omnimedia tasks wait task_1');
    // Started from a project's install: the command it can run there.
    const local = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--wait', '--timeout', '0.05', ...FAST, ...CONN], { command: 'npx omnimedia' });
    expect(local.stderr).toContain('Resume with: npx omnimedia tasks wait task_1');
    expect(local.stderr).not.toContain('see it with');
  });

  it('Ctrl-C while waiting exits 130 and prints the task id to resume with', async () => {
    server.use(http.get(`${BASE_URL}/v1/tasks/:id`, () => HttpResponse.json({ task_id: 'task_1', status: 'processing' })));
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--wait', '--json', ...FAST, ...CONN], {
      onStderr: (text, interrupt) => {
        if (text.includes('processing')) interrupt();
      },
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('Resume with: omnimedia tasks wait task_1');
    const local = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--wait', ...FAST, ...CONN], {
      command: 'npx omnimedia',
      onStderr: (text, interrupt) => {
        if (text.includes('processing')) interrupt();
      },
    });
    expect(local.stderr).toContain('Resume with: npx omnimedia tasks wait task_1');
    expect(JSON.parse(run.stdout)).toEqual({ error: expect.objectContaining({ type: 'Interrupted', task_id: 'task_1', exit_code: 130 }) });
  });
});

describe('images edit and videos', () => {
  it('uploads local files first, in order, and sends their URLs; URLs pass as they are', async () => {
    await writeFile(join(dir, 'a.png'), PNG);
    await writeFile(join(dir, 'mask.png'), PNG);
    let uploads = 0;
    let body: unknown;
    server.use(
      http.post(`${BASE_URL}/v1/uploads/images`, async ({ request }) => {
        const file = (await request.formData()).get('file') as File;
        return HttpResponse.json({ url: `https://uploads.test/${++uploads}-${file.name}`, filename: file.name, bytes: file.size });
      }),
      http.post(`${BASE_URL}/v1/images/edits`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(submission);
      }),
    );
    const run = await runCli([
      'images', 'edit', '-m', 'm', '-p', 'night',
      '--image', join(dir, 'a.png'), '--image', 'https://uploads.test/already.png', '--mask', join(dir, 'mask.png'), ...CONN,
    ]);
    expect(run.code).toBe(0);
    expect(body).toEqual({
      model: 'm',
      prompt: 'night',
      image: ['https://uploads.test/1-a.png', 'https://uploads.test/already.png'],
      mask: 'https://uploads.test/2-mask.png',
    });
    expect(run.stderr).toMatch(/uploaded a\.png \(64 B\)/);
  });

  it('stops at an --image that is neither a file nor a URL, before any upload', async () => {
    const run = await runCli(['images', 'edit', '-m', 'm', '-p', 'x', '--image', join(dir, 'nope.png'), '--json', ...CONN]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error).toMatchObject({ type: 'UsageError', flag: '--image' });
  });

  it('videos generate picks the image-to-video model from --image and sends seconds as a string', async () => {
    let body: unknown;
    server.use(
      http.post(`${BASE_URL}/v1/video/generate`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ ...submission, normalized_model: 'omni_flash_components_1080p_6s' }, { status: 202 });
      }),
    );
    const run = await runCli(['videos', 'generate', '-p', 'run', '-i', 'https://uploads.test/fox.png', '--seconds', '6', '-r', '1080p', '--json', ...CONN]);
    expect(run.code).toBe(0);
    expect(body).toEqual({
      model: 'omni_flash_components',
      seconds: '6',
      resolution: '1080p',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://uploads.test/fox.png' } }, { type: 'text', text: 'run' }] }],
    });
    expect(JSON.parse(run.stdout).normalized_model).toBe('omni_flash_components_1080p_6s');
  });

  it('videos generate reports a bad value against its flag', async () => {
    const run = await runCli(['videos', 'generate', '-p', 'x', '--seconds', '7', '-a', '4:3', '-i', 'https://u/1', '-i', 'https://u/2', '-i', 'https://u/3', '-i', 'https://u/4', ...CONN]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--image (images): must hold at most 3 reference images (got 4)');
    expect(run.stderr).toMatch(/--seconds: must be one of/);
    expect(run.stderr).toContain('  --aspect-ratio: must be one of "16:9" or "9:16"');
  });

  it('videos edit uploads a local video and sends its upload_id', async () => {
    await writeFile(join(dir, 'clip.mp4'), MP4);
    let body: unknown;
    server.use(
      http.post(`${BASE_URL}/v1/uploads/videos`, () => HttpResponse.json({ upload_id: 'upl_9', url: 'https://uploads.test/clip.mp4' })),
      http.post(`${BASE_URL}/v1/video/edits`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(submission, { status: 202 });
      }),
    );
    const run = await runCli(['videos', 'edit', '-p', 'snow', '--video', join(dir, 'clip.mp4'), ...CONN]);
    expect(run.code).toBe(0);
    expect(body).toEqual({ model: 'omni_flash_edit', messages: [{ role: 'user', content: 'snow' }], input_video: { upload_id: 'upl_9' } });
  });

  it('videos edit takes no --seconds', async () => {
    const run = await runCli(['videos', 'edit', '-p', 'snow', '--video', 'upl_1', '--seconds', '4', ...CONN]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown option --seconds');
  });
});

describe('uploads and tasks', () => {
  it('uploads image FILE prints the record; a wrong type exits 2 naming what was found', async () => {
    await writeFile(join(dir, 'a.png'), PNG);
    await writeFile(join(dir, 'fake.png'), 'GIF89a' + ' '.repeat(60));
    server.use(http.post(`${BASE_URL}/v1/uploads/images`, () => HttpResponse.json({ url: 'https://uploads.test/a.png', width: 1, height: 1 })));
    const ok = await runCli(['uploads', 'image', join(dir, 'a.png'), '--json', ...CONN]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ url: 'https://uploads.test/a.png', width: 1, height: 1 });
    const bad = await runCli(['uploads', 'image', join(dir, 'fake.png'), ...CONN]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('FILE (file): must be PNG, JPEG, WebP (found GIF)');
  });

  it('uploads video FILE prints the upload_id', async () => {
    await writeFile(join(dir, 'clip.mp4'), MP4);
    server.use(http.post(`${BASE_URL}/v1/uploads/videos`, () => HttpResponse.json({ upload_id: 'upl_1', url: 'https://uploads.test/c.mp4' })));
    const run = await runCli(['uploads', 'video', join(dir, 'clip.mp4'), ...CONN]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^upload_id\s+upl_1$/m);
  });

  it('tasks get needs no key; a failed task exits 1; a 404 exits 3', async () => {
    server.use(
      http.get(`${BASE_URL}/v1/tasks/ok`, ({ request }) =>
        request.headers.has('authorization') ? HttpResponse.json({}, { status: 400 }) : HttpResponse.json(done('ok')),
      ),
      http.get(`${BASE_URL}/v1/tasks/bad`, () => HttpResponse.json({ task_id: 'bad', status: 'failed', fail_reason: 'content_policy' })),
      http.get(`${BASE_URL}/v1/tasks/gone`, () => HttpResponse.json({ error: 'not found' }, { status: 404 })),
    );
    const ok = await runCli(['tasks', 'get', 'ok', '--base-url', BASE_URL]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^url\s+https:\/\/api\.omnimedia\.test\/files\/ok\.png$/m);
    expect(ok.stdout).toMatch(/^attempt\s+#1 p1 completed 3s$/m);
    const bad = await runCli(['tasks', 'get', 'bad', '--json', '--base-url', BASE_URL]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ task_id: 'bad', status: 'failed' });
    const gone = await runCli(['tasks', 'get', 'gone', '--base-url', BASE_URL]);
    expect(gone.code).toBe(3);
  });

  it('tasks wait resumes a wait by id', async () => {
    server.use(scriptedTask(done('task_7'), 2));
    const run = await runCli(['tasks', 'wait', 'task_7', '--json', ...FAST, '--base-url', BASE_URL]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(done('task_7'));
  });

  it('tasks get without an id is a usage error', async () => {
    const run = await runCli(['tasks', 'get']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing TASK_ID');
  });
});

afterEach(async () => {
  expect(await readdir(dir).catch(() => [])).not.toContain('.partial');
});

describe('files given to submissions', () => {
  it('a bad --image file is reported against --image, and nothing is submitted', async () => {
    await writeFile(join(dir, 'anim.png'), 'GIF89a' + ' '.repeat(60));
    let submitted = 0;
    server.use(http.post(`${BASE_URL}/v1/images/edits`, () => (submitted++, HttpResponse.json(submission))));
    const run = await runCli(['images', 'edit', '-m', 'm', '-p', 'x', '--image', join(dir, 'anim.png'), ...CONN]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`  --image: ${join(dir, 'anim.png')}: must be PNG, JPEG, WebP (found GIF)`);
    expect(submitted).toBe(0);
  });
});

describe('Ctrl-C outside a wait', () => {
  it('during an upload exits 130 as interrupted, not as a crash', async () => {
    await writeFile(join(dir, 'a.png'), PNG);
    let uploading: () => void = () => {};
    const started = new Promise<void>((resolve) => (uploading = resolve));
    server.use(
      http.post(`${BASE_URL}/v1/uploads/images`, async () => {
        uploading();
        // Never answers: only the abort ends the request.
        return new Promise<never>(() => {});
      }),
    );
    const controller = new AbortController();
    const run = runCli(['images', 'edit', '-m', 'm', '-p', 'x', '-i', join(dir, 'a.png'), '--json', ...CONN], { controller });
    await started;
    controller.abort(new Error('interrupted'));
    const result = await run;
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stdout).error).toMatchObject({ type: 'Interrupted', exit_code: 130 });
  });
});

describe('--verbose', () => {
  it('logs each request on stderr, never the key, and keeps stdout for the result', async () => {
    server.use(http.post(`${BASE_URL}/v1/images/generations`, () => HttpResponse.json(submission)));
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', '--verbose', '--json', ...CONN]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\[omnimedia\] POST \/v1\/images\/generations 200/);
    expect(run.stderr).not.toContain(API_KEY);
    expect(JSON.parse(run.stdout)).toEqual(submission);
  });
});

describe('mock --samples DIR', () => {
  it("writes the guides' sample inputs before serving, and keeps a file of the user's by the same name", async () => {
    const samples = join(dir, 'inputs');
    await mkdir(samples);
    await writeFile(join(samples, 'photo.png'), 'mine');
    const run = await runCli(['mock', '--port', '0', '--samples', samples, '--json'], {
      onStdout: (_text, interrupt) => interrupt(),
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).samples).toEqual({ written: ['mask.png', 'cat.png', 'sofa.png', 'lamp.png', 'clip.mp4'], kept: ['photo.png'] });
    expect((await readdir(samples)).sort()).toEqual(['cat.png', 'clip.mp4', 'lamp.png', 'mask.png', 'photo.png', 'sofa.png']);
    expect(await readFile(join(samples, 'photo.png'), 'utf8')).toBe('mine');
    for (const name of ['mask.png', 'cat.png', 'sofa.png', 'lamp.png']) {
      const bytes = new Uint8Array(await readFile(join(samples, name)));
      expect(sniffMediaType(bytes)?.mediaType, name).toBe('image/png');
      const view = new DataView(bytes.buffer, bytes.byteOffset);
      expect([view.getUint32(16), view.getUint32(20)], name).toEqual([1024, 1024]);
    }
    expect(sniffMediaType(new Uint8Array(await readFile(join(samples, 'clip.mp4'))))?.mediaType).toBe('video/mp4');
  });
});
