import { existsSync, readdirSync, readFileSync, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, NotFoundError, OmniMedia, OmniMediaError, UnusableResultError, ValidationError } from '../../src/index.ts';
import type { DownloadProgress } from '../../src/resources/index.ts';
import { fixture, tempDir } from '../helpers/fixtures.ts';
import { useLoopback } from '../helpers/loopback.ts';
import { API_KEY } from '../helpers/msw.ts';

const dir = await tempDir();
const loopback = await useLoopback();
const client = new OmniMedia({ apiKey: API_KEY, baseURL: loopback.url, defaultHeaders: { 'x-team': 'secret-team' } });
const png = fixture('tiny.png');
const mp4 = fixture('tiny.mp4');
const big = new Uint8Array(3 * 1024 * 1024 + 11).map((_, i) => i % 251);

/** Serve the fixtures and a 3 MiB file; `/broken` sends half its declared length and drops the connection. */
function serveFiles() {
  loopback.handle((req, res) => {
    const files: Record<string, [Uint8Array, string]> = {
      '/r/out.png': [png.bytes, 'image/png'],
      '/r/out.mp4': [mp4.bytes, 'video/mp4'],
      '/r/big.bin': [big, 'application/octet-stream'],
      '/r/noext': [png.bytes, 'image/png'],
    };
    if (req.path === '/broken') {
      res.writeHead(200, { 'content-length': String(big.byteLength) });
      res.write(big.subarray(0, 1024 * 1024));
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    const file = files[req.path];
    if (!file) return void res.writeHead(404).end('no such file');
    res.writeHead(200, { 'content-type': file[1], 'content-length': String(file[0].byteLength) });
    res.end(file[0]);
  });
}

const bytesOf = (path: string) => new Uint8Array(readFileSync(path));

describe('files.download over real HTTP (loopback)', () => {
  it('a URL to a Blob; no Authorization header, no default headers', async () => {
    serveFiles();
    const blob = await client.files.download(`${loopback.url}/r/out.png`);
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(png.bytes);
    expect(loopback.seen[0]?.headers.authorization).toBeUndefined();
    expect(loopback.seen[0]?.headers['x-team']).toBeUndefined();
  });

  it('a URL to a path: streamed to disk, progress up to the Content-Length', async () => {
    serveFiles();
    const seen: DownloadProgress[] = [];
    const target = join(dir, 'nested', 'big.bin');
    const path = await client.files.download(`${loopback.url}/r/big.bin`, { to: target, onProgress: (p) => seen.push(p) });
    expect(path).toBe(target);
    expect(bytesOf(target)).toEqual(big);
    expect(seen[0]).toMatchObject({ loaded: 0, total: big.byteLength, index: 0 });
    expect(seen.at(-1)).toEqual({ loaded: big.byteLength, total: big.byteLength, url: `${loopback.url}/r/big.bin`, index: 0 });
    expect(seen.length).toBeGreaterThan(2);
    expect(readdirSync(join(dir, 'nested'))).toEqual(['big.bin']); // no .part left
  });

  it('a URL to a Node writable stream and to a web WritableStream', async () => {
    serveFiles();
    const target = join(dir, 'via-writable.mp4');
    await client.files.download(`${loopback.url}/r/out.mp4`, { to: createWriteStream(target) });
    expect(bytesOf(target)).toEqual(mp4.bytes);

    const chunks: Buffer[] = [];
    const pass = new PassThrough().on('data', (c: Buffer) => chunks.push(c));
    await client.files.download(`${loopback.url}/r/big.bin`, { to: pass });
    expect(new Uint8Array(Buffer.concat(chunks))).toEqual(big);

    const parts: Uint8Array[] = [];
    await client.files.download(`${loopback.url}/r/out.png`, { to: new WritableStream({ write: (c) => void parts.push(c) }) });
    expect(new Uint8Array(Buffer.concat(parts))).toEqual(png.bytes);
  });

  it('a download that breaks off removes its partial file and keeps an older file of the same name', async () => {
    serveFiles();
    const target = join(dir, 'broken', 'result.bin');
    await client.files.download(`${loopback.url}/r/out.png`, { to: target });
    writeFileSync(target, 'older');
    const error = await client.files.download(`${loopback.url}/broken`, { to: target, overwrite: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(readdirSync(join(dir, 'broken'))).toEqual(['result.bin']);
    expect(readFileSync(target, 'utf8')).toBe('older');
  });

  it('an aborted download removes its partial file and rejects with the reason', async () => {
    loopback.handle((_req, res) => {
      res.writeHead(200, { 'content-length': String(big.byteLength) });
      res.write(big.subarray(0, 512 * 1024)); // and never more
    });
    const controller = new AbortController();
    const target = join(dir, 'aborted', 'x.bin');
    const pending = client.files.download(`${loopback.url}/slow`, {
      to: target,
      signal: controller.signal,
      onProgress: ({ loaded }) => loaded > 0 && controller.abort(new Error('stop')),
    });
    await expect(pending).rejects.toThrow('stop');
    expect(existsSync(join(dir, 'aborted')) ? readdirSync(join(dir, 'aborted')) : []).toEqual([]);
  });

  it('a task: every data[].url, in order, into a directory or as Blobs', async () => {
    serveFiles();
    const task = {
      task_id: 'task_42',
      status: 'completed',
      data: [{ url: `${loopback.url}/r/out.png` }, { url: `${loopback.url}/r/noext` }, { url: `${loopback.url}/r/out.mp4` }],
    };
    const paths = await client.files.download(task, { to: join(dir, 'task') });
    expect(paths).toEqual([join(dir, 'task', 'task_42-0.png'), join(dir, 'task', 'task_42-1.png'), join(dir, 'task', 'task_42-2.mp4')]);
    expect(bytesOf(paths[2]!)).toEqual(mp4.bytes);
    const blobs = await client.files.download(task);
    expect(await Promise.all(blobs.map(async (b) => (await b.arrayBuffer()).byteLength))).toEqual([
      png.bytes.byteLength,
      png.bytes.byteLength,
      mp4.bytes.byteLength,
    ]);
    const chosen = await client.files.download(task, { to: ({ index }) => join(dir, 'chosen', `n${index}`) });
    expect(chosen).toEqual([0, 1, 2].map((i) => join(dir, 'chosen', `n${i}`)));
  });

  it('a task whose output fails: the others stop at once and nothing is left behind, an older file kept', async () => {
    const stalled: { aborted: boolean }[] = [];
    let slowStarted!: () => void;
    const slowOnItsWay = new Promise<void>((resolve) => (slowStarted = resolve));
    loopback.handle((req, res) => {
      // The third fails only once the second is on its way: the three start together, and on a
      // busy machine (CI's Node 22 run) the 404 was read before the slow request reached the
      // server, which then never saw it (nothing to stop: `stalled` stayed empty).
      if (req.path === '/r/fails') return void slowOnItsWay.then(() => res.writeHead(404).end('gone'));
      if (req.path === '/r/slow') {
        // Half of it, then nothing: the download goes on until something stops it.
        const seen = { aborted: false };
        stalled.push(seen);
        res.on('close', () => (seen.aborted = true));
        res.writeHead(200, { 'content-length': String(big.byteLength) });
        res.write(big.subarray(0, 512 * 1024));
        return void slowStarted();
      }
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.bytes.byteLength) }).end(png.bytes);
    });
    const into = join(dir, 'all-or-none');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(into, { recursive: true });
    writeFileSync(join(into, 'task_7-0.png'), 'older');
    const task = {
      task_id: 'task_7',
      status: 'completed',
      data: [{ url: `${loopback.url}/r/fast.png` }, { url: `${loopback.url}/r/slow` }, { url: `${loopback.url}/r/fails` }],
    };
    // A fast output is done, a slow one is on its way, when the third fails.
    const error = await client.files.download(task, { to: into, overwrite: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).taskId).toBe('task_7');
    expect(readdirSync(into)).toEqual(['task_7-0.png']);
    expect(readFileSync(join(into, 'task_7-0.png'), 'utf8')).toBe('older');
    await expect.poll(() => stalled.map((s) => s.aborted)).toEqual([true]);
  });

  it('a missing file is a NotFoundError; a 503 before the body is retried', async () => {
    serveFiles();
    await expect(client.files.download(`${loopback.url}/r/missing`)).rejects.toBeInstanceOf(NotFoundError);
    let calls = 0;
    loopback.handle((_req, res) => (++calls === 1 ? void res.writeHead(503, { 'retry-after-ms': '1' }).end() : void res.end('ok')));
    expect(await (await client.files.download(`${loopback.url}/flaky`)).text()).toBe('ok');
    expect(calls).toBe(2);
  });

  it('refuses what it cannot download before any request', async () => {
    await expect(client.files.download('not a url')).rejects.toBeInstanceOf(ValidationError);
    const empty = await client.files.download({ task_id: 't', status: 'pending', data: [] }).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(UnusableResultError);
    expect(empty).toMatchObject({ taskId: 't', message: 'Task t (status "pending") has no usable result: data holds no result URL (status "pending")' });
    await expect(client.files.download({ task_id: 't', data: [{ url: `${loopback.url}/a` }] }, { to: new WritableStream() as never })).rejects.toThrow(
      /for a task, give a directory/,
    );
    expect(loopback.seen).toHaveLength(0);
  });
});

// Issue 30, defect 13: task ids `job/1` and `job_1` both saved to `job_1-0.png` (the second over
// the first), the URL's extension was kept (`..%2F..%2Fescaped.sh` served as image/png saved as
// `.._.._escaped-0.sh`, hidden), and an existing file was replaced without being asked.
describe('downloads never replace a file by surprise, and name files by the task and the served type', () => {
  const servePng = (type = 'image/png', bytes: Uint8Array = png.bytes) =>
    loopback.handle((_req, res) => void res.writeHead(200, { 'content-type': type, 'content-length': String(bytes.byteLength) }).end(bytes));
  const taskOf = (task_id: string, ...paths: string[]) => ({ task_id, status: 'completed', data: paths.map((p) => ({ url: `${loopback.url}${p}` })) });

  it('task ids that differ only in characters a file name cannot hold get names of their own', async () => {
    servePng();
    const into = join(dir, 'ids');
    const first = await client.files.download(taskOf('job/1', '/r/a.png'), { to: into });
    const second = await client.files.download(taskOf('job_1', '/r/a.png'), { to: into });
    const dotted = await client.files.download(taskOf('..', '/r/a.png'), { to: into });
    expect([first, second, dotted]).toEqual([[join(into, 'job%2F1-0.png')], [join(into, 'job_1-0.png')], [join(into, '%2E.-0.png')]]);
    expect(readdirSync(into).sort()).toEqual(['%2E.-0.png', 'job%2F1-0.png', 'job_1-0.png']);
  });

  it('the extension comes from the served type, else from the bytes, never from the URL', async () => {
    const into = join(dir, 'types');
    servePng();
    expect(await client.files.download(taskOf('t1', '/r/..%2F..%2Fescaped.sh'), { to: into })).toEqual([join(into, 't1-0.png')]);
    servePng('application/octet-stream');
    expect(await client.files.download(taskOf('t2', '/r/clip.mp4'), { to: into })).toEqual([join(into, 't2-0.png')]);
    servePng('application/octet-stream', new TextEncoder().encode('#!/bin/sh\necho hi\n'));
    expect(await client.files.download(taskOf('t3', '/r/run.sh'), { to: into })).toEqual([join(into, 't3-0')]);
    expect(readdirSync(into).sort()).toEqual(['t1-0.png', 't2-0.png', 't3-0']);
  });

  it('an existing file is a ValidationError before any request; overwrite: true replaces it', async () => {
    servePng();
    const target = join(dir, 'exists', 'one.png');
    await client.files.download(`${loopback.url}/r/a.png`, { to: target });
    writeFileSync(target, 'mine');
    loopback.seen.length = 0;
    const error = await client.files.download(`${loopback.url}/r/a.png`, { to: target }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: 'to', message: `"${target}" exists: pass overwrite: true to replace it, or choose another path` }]);
    expect(loopback.seen).toHaveLength(0);
    expect(readFileSync(target, 'utf8')).toBe('mine');
    await client.files.download(`${loopback.url}/r/a.png`, { to: target, overwrite: true });
    expect(bytesOf(target)).toEqual(png.bytes);
  });

  it('a task whose output is already in the directory (any extension): a ValidationError with its id, before any request; overwrite: true replaces it', async () => {
    servePng();
    const into = join(dir, 'task-exists');
    await client.files.download(taskOf('task_9', '/r/a.png', '/r/b.png'), { to: into });
    writeFileSync(join(into, 'task_9-1.png'), 'mine');
    loopback.seen.length = 0;
    const error = await client.files.download(taskOf('task_9', '/r/a.png', '/r/b.png'), { to: into }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ taskId: 'task_9' });
    expect(loopback.seen).toHaveLength(0);
    expect(readFileSync(join(into, 'task_9-1.png'), 'utf8')).toBe('mine');
    await client.files.download(taskOf('task_9', '/r/a.png', '/r/b.png'), { to: into, overwrite: true });
    expect(bytesOf(join(into, 'task_9-1.png'))).toEqual(png.bytes);
    expect(readdirSync(into).sort()).toEqual(['task_9-0.png', 'task_9-1.png']);
  });

  it('a file that appears while downloading is not replaced, and nothing of the call is left', async () => {
    const into = join(dir, 'appears');
    loopback.handle((req, res) => {
      // Another writer takes the second output's name while the body is on its way.
      if (req.path === '/r/b.png') writeFileSync(join(into, 'task_a-1.png'), 'theirs');
      res.writeHead(200, { 'content-type': 'image/png' }).end(png.bytes);
    });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(into, { recursive: true });
    const error = await client.files.download(taskOf('task_a', '/r/a.png', '/r/b.png'), { to: into }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OmniMediaError);
    expect(error).toMatchObject({ taskId: 'task_a', message: expect.stringContaining('appeared while the file was downloading') });
    expect(readdirSync(into)).toEqual(['task_a-1.png']);
    expect(readFileSync(join(into, 'task_a-1.png'), 'utf8')).toBe('theirs');
  });
});

// Issue 30, defects 4 and 12: a completed task without a usable result URL threw a
// ValidationError without its task id; result URLs went whole into errors and logs, and a URL
// with credentials was fetched and retried.
describe('result URLs that cannot be used, and what errors and logs say of a URL', () => {
  it('a completed task with no result, or a relative one, or one with credentials: UnusableResultError with the task and its id', async () => {
    for (const [data, problem] of [
      [[], 'data holds no result URL (status "completed")'],
      [[{ url: '/files/0.png' }], 'data[0].url must be an absolute URL'],
      [[{ url: `${loopback.url}/r/a.png` }, { url: 'https://user:pass@cdn.example/1.png' }], 'data[1].url must not hold credentials (user:password@)'],
    ] as const) {
      const task = { task_id: 'task_done', status: 'completed', data };
      const error = await client.files.download(task, { to: join(dir, 'unusable') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnusableResultError);
      // The error keeps the task, but never a URL's credentials (util.inspect and JSON print it).
      const kept = JSON.parse(JSON.stringify(task).replace('user:pass@', '[redacted]@')) as typeof task;
      expect(error).toMatchObject({ taskId: 'task_done', task: kept, message: `Task task_done (status "completed") has no usable result: ${problem}` });
      expect(error).not.toBeInstanceOf(ValidationError);
    }
    expect(loopback.seen).toHaveLength(0);
  });

  it('a URL with credentials given by the caller: a ValidationError, nothing fetched', async () => {
    const error = await client.files.download(`http://user:secret@127.0.0.1:${new URL(loopback.url).port}/r/a.png`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: 'url', message: 'must not hold credentials (user:password@)' }]);
    expect(JSON.stringify(error)).not.toContain('secret');
    expect(loopback.seen).toHaveLength(0);
  });

  it('a signed URL that fails: its signature is in no error message and no log line (retry included)', async () => {
    const lines: string[] = [];
    const keep = (message: string) => void lines.push(message);
    const logged = new OmniMedia({ apiKey: API_KEY, baseURL: loopback.url, logLevel: 'info', logger: { error: keep, warn: keep, info: keep, debug: keep } });
    let calls = 0;
    loopback.handle((_req, res) => void (++calls === 1 ? res.writeHead(503, { 'retry-after-ms': '1' }).end() : res.writeHead(404).end('no such file')));
    const signed = `${loopback.url}/out/a.png?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=5ec7e75ec7e7`;
    const error = await logged.files.download(signed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(calls).toBe(2);
    expect(lines.join('\n')).toMatch(/retry 1/);
    const said = [...lines, (error as Error).message, JSON.stringify(error)].join('\n');
    expect(said).toContain(`${loopback.url}/out/a.png`);
    expect(said).not.toContain('5ec7e75ec7e7');
    expect(said).not.toContain('AKIAEXAMPLE');
  });
});
