// The studio's server and its safety (DESIGN 15): every attack refused before anything reaches
// the proxy (0 requests to the service), the token's cookie, files only by name from the
// journal, and no answer carrying the key.
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { startStudio, type RunningStudio } from '../../src/studio/server.ts';
import { builtPage, raw, tempDir, type RawAnswer } from './helpers.ts';

const KEY = 'sk-studio-secret-4f1d9a7be2c04d51';
let service: MockServer;
let studio: RunningStudio;
let cookie: string;
let removeDir: () => Promise<void>;
let dir: string;
const answers: RawAnswer[] = [];

/** A request with the cookie (unless told), recorded for the key check. */
async function ask(path: string, options: Parameters<typeof raw>[2] & { anonymous?: boolean } = {}): Promise<RawAnswer> {
  const headers = { ...(options.anonymous ? {} : { cookie }), ...options.headers };
  const got = await raw(studio.port, path, { ...options, headers });
  answers.push(got);
  return got;
}

beforeAll(async () => {
  service = await startMockServer({ apiKeys: [KEY], durations: { pending: 50, image: 200 } });
  ({ dir, remove: removeDir } = await tempDir());
  studio = await startStudio({ dir, apiKey: KEY, baseURL: service.url, assetsDir: await builtPage(), warn: () => {} });
  const visit = await raw(studio.port, `/?token=${studio.token}`, { headers: { 'sec-fetch-site': 'none' } });
  answers.push(visit);
  expect(visit.status).toBe(303);
  cookie = String(visit.headers['set-cookie']?.[0]).split(';')[0] as string;
}, 60_000);

afterAll(async () => {
  await studio?.close();
  await service?.close();
  await removeDir?.();
});

describe('the studio server', () => {
  it('prints a URL on 127.0.0.1 with its token; the first visit turns the token into an HttpOnly, SameSite=Strict cookie and drops it from the address', async () => {
    expect(studio.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/);
    const visit = await raw(studio.port, `/?token=${studio.token}`);
    expect(visit.headers.location).toBe('/');
    const set = String(visit.headers['set-cookie']?.[0]);
    expect(set).toContain(`omnimedia_studio_${studio.port}=${studio.token}`);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    const page = await ask('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/app.js">');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    // Scripts may send the token as a bearer token instead.
    expect((await ask('/studio/jobs', { anonymous: true, headers: { authorization: `Bearer ${studio.token}` } })).status).toBe(200);
  });

  it('refuses every attack before anything is forwarded: no token, a wrong token, a foreign Host (DNS rebinding), a foreign Origin or Sec-Fetch-Site (CSRF); 0 requests reach the service', async () => {
    service.mock.clearRequests();
    const body = JSON.stringify({ model: 'omni-image', prompt: 'a fox' });
    const post = { method: 'POST', body, headers: { 'content-type': 'application/json' } };
    const submit = '/api/omnimedia/v1/images/generations';
    const refusals: [string, Promise<RawAnswer>, number][] = [
      ['no token: the page', ask('/', { anonymous: true }), 401],
      ['no token: a submission', ask(submit, { ...post, anonymous: true }), 401],
      ['no token: the jobs', ask('/studio/jobs', { anonymous: true }), 401],
      ['a wrong token in the URL', ask(`/?token=${'0'.repeat(64)}`, { anonymous: true }), 401],
      ['a wrong cookie', ask(submit, { ...post, anonymous: true, headers: { ...post.headers, cookie: `omnimedia_studio_${studio.port}=${'1'.repeat(64)}` } }), 401],
      ['a wrong bearer token', ask(submit, { ...post, anonymous: true, headers: { ...post.headers, authorization: 'Bearer nope' } }), 401],
      ['a rebinding name', ask(submit, { ...post, headers: { ...post.headers, host: `evil.example:${studio.port}` } }), 421],
      ['another port', ask(submit, { ...post, headers: { ...post.headers, host: `127.0.0.1:${studio.port + 1}` } }), 421],
      ['no Host', ask(submit, { ...post, headers: { ...post.headers, host: '' } }), 421],
      ['the token in a rebinding name', ask(`/?token=${studio.token}`, { anonymous: true, headers: { host: `evil.example:${studio.port}` } }), 421],
      ['a foreign Origin', ask(submit, { ...post, headers: { ...post.headers, origin: 'https://evil.example' } }), 403],
      ['another local port', ask(submit, { ...post, headers: { ...post.headers, origin: `http://127.0.0.1:${studio.port + 1}` } }), 403],
      ['Origin null', ask(submit, { ...post, headers: { ...post.headers, origin: 'null' } }), 403],
      ['Sec-Fetch-Site cross-site', ask(submit, { ...post, headers: { ...post.headers, 'sec-fetch-site': 'cross-site' } }), 403],
      ['Sec-Fetch-Site same-site', ask('/studio/jobs', { headers: { 'sec-fetch-site': 'same-site' } }), 403],
      ['an upload from another site', ask('/api/omnimedia/v1/uploads/images', { method: 'POST', body: 'x', headers: { origin: 'https://evil.example', 'content-type': 'image/png' } }), 403],
      ['events from another site', ask('/api/omnimedia/v1/tasks/task_1/events', { headers: { 'sec-fetch-site': 'cross-site' } }), 403],
    ];
    for (const [what, answer, status] of refusals) expect((await answer).status, what).toBe(status);
    expect(service.mock.requests).toEqual([]);
  });

  it('serves files only by name from the journal, never by a path from the request', async () => {
    service.mock.clearRequests();
    const tries = [
      '/journal.jsonl',
      '/studio.lock',
      '/studio/results/../journal.jsonl',
      '/studio/results/%2e%2e/journal.jsonl',
      '/studio/results/..%2fjournal.jsonl/0',
      '/studio/results/task_1/0',
      '/app.js/../../package.json',
      '/%2e%2e/%2e%2e/package.json',
      '/..%5c..%5cpackage.json',
      '/studio/results/x%00/0',
      '/api/omnimedia/../../journal.jsonl',
      '/api/omnimedia/v1/../../studio.lock',
    ];
    const journal = await readFile(join(dir, 'studio.lock'), 'utf8');
    for (const path of tries) {
      const got = await ask(path);
      expect(got.status, path).toBeGreaterThanOrEqual(400);
      expect(got.body, path).not.toContain(journal.trim());
      expect(got.body, path).not.toContain('"devDependencies"');
    }
    expect(service.mock.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('journals a submission before it is forwarded, answers the page with the task, downloads its outputs into DIR/results and serves them by task id; no answer carries the key', async () => {
    service.mock.clearRequests();
    const submitted = await ask('/api/omnimedia/v1/images/generations', {
      method: 'POST',
      body: JSON.stringify({ model: 'omni-image', prompt: 'a lighthouse', size: '1024x1024' }),
      headers: { 'content-type': 'application/json', origin: studio.origin, 'sec-fetch-site': 'same-origin' },
    });
    expect(submitted.status).toBe(200);
    const taskId = (JSON.parse(submitted.body) as { task_id: string }).task_id;
    const lines = (await readFile(join(dir, 'journal.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.type)).toEqual(['submitting', 'answered']);
    expect(lines[0]).toMatchObject({ op: 'images.generate', params: { model: 'omni-image', prompt: 'a lighthouse', size: '1024x1024' } });
    expect(lines[1]).toMatchObject({ task_id: taskId, status: 200 });
    const file = await ask(`/studio/results/${taskId}/0`);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    const jobs = JSON.parse((await ask('/studio/jobs')).body) as { jobs: { task_id: string; state: string; files: string[] }[] };
    expect(jobs.jobs[0]).toMatchObject({ task_id: taskId, state: 'finished' });
    const onDisk = await readFile(join(dir, 'results', jobs.jobs[0]!.files[0]!));
    const upstream = await fetch(((await (await fetch(`${service.url}/v1/tasks/${taskId}`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { data: { url: string }[] }).data[0]!.url);
    expect(onDisk.equals(Buffer.from(await upstream.arrayBuffer()))).toBe(true);
    expect(service.mock.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    const download = await ask(`/studio/results/${taskId}/0?download`);
    expect(download.headers['content-disposition']).toMatch(/^attachment/);
    // The task as the page reads it, and its events: through the proxy.
    expect((await ask(`/api/omnimedia/v1/tasks/${taskId}`)).status).toBe(200);
    const everything = answers.map((a) => JSON.stringify(a.headers) + a.body).join('\n');
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(KEY.slice(3, 20));
  });

  it('one studio per DIR: a second one refuses at start, naming the first', async () => {
    await expect(startStudio({ dir, apiKey: KEY, baseURL: service.url, assetsDir: await builtPage(), warn: () => {} })).rejects.toThrow(`in use by another studio (pid ${process.pid} on ${hostname()}, ${studio.origin})`);
  });
});
