// The omnimedia/proxy entry imports nothing from node:* at top level: bundled for an edge worker
// (esbuild, the browser platform with the worker conditions, as wrangler does), no node: import
// is left, and the bundle serves requests. (workerd.test.ts runs such a bundle in workerd.)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder } from './helpers.ts';
import { WORKER_BUILD } from './workerd.ts';

const entry = fileURLToPath(new URL('../../src/proxy/index.ts', import.meta.url));

describe('omnimedia/proxy on an edge worker', () => {
  let dir: string;
  let code: string;
  let imports: { path: string; external?: boolean }[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'omnimedia-edge-'));
    const result = await build({ ...WORKER_BUILD, stdin: { contents: `export { createProxy } from ${JSON.stringify(entry)};`, resolveDir: dir, loader: 'ts' } });
    code = result.outputFiles[0]!.text;
    imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('leaves no node: import, static or dynamic, and no require', () => {
    expect(imports.filter((i) => i.path.startsWith('node:') || i.external)).toEqual([]);
    expect(code).not.toMatch(/\bnode:[a-z]/);
    expect(code).not.toMatch(/\brequire\(/);
  });

  it('serves a task query from the bundle alone', async () => {
    const upstream = await startRecorder((request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ task_id: 'task_1', status: 'completed', seen: request.target })));
    try {
      const file = join(dir, 'worker.mjs');
      await writeFile(file, code);
      const { createProxy } = (await import(pathToFileURL(file).href)) as typeof import('omnimedia/proxy');
      const worker = { fetch: createProxy({ apiKey: 'sk-edge', baseURL: upstream.url, authorize: () => ({ id: 'edge' }) }).handler };
      const answer = await worker.fetch(new Request('https://app.example.com/v1/tasks/task_1'));
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ task_id: 'task_1', status: 'completed', seen: '/v1/tasks/task_1' });
      const submitted = await worker.fetch(new Request('https://app.example.com/v1/images/generations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m","prompt":""}' }));
      expect(submitted.status).toBe(400); // the SDK's request rules came with it
    } finally {
      await upstream.close();
    }
  });
});
