// `omnimedia batch` in process against the mock server: results.jsonl derived from the journal
// (a foreign or torn line costs only itself, a lost line comes back), and the summary counting
// the jobs of the current file.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { runCli } from './helpers/run.ts';

let server: MockServer;
let dir: string;
const job = (id: string) => JSON.stringify({ id, op: 'images.generate', params: { model: 'omni-image', prompt: `job ${id}` } });

beforeAll(async () => {
  server = await startMockServer({ durations: { pending: 20, image: 60 }, callbackRetryDelays: [] });
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-cli-batch-'));
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function batch(ids: string[], out: string) {
  const jobs = join(dir, `${out}.jsonl`);
  await writeFile(jobs, `${ids.map(job).join('\n')}\n`);
  return runCli(['batch', jobs, '--out', join(dir, out), '--json'], { env: { OMNIMEDIA_BASE_URL: server.url, OMNIMEDIA_API_KEY: 'sk-mock' } });
}

const resultIds = async (out: string) =>
  (await readFile(join(dir, out, 'results.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { id: string }).id);

describe('omnimedia batch: results.jsonl and the summary', () => {
  it('a foreign, blank or torn line in results.jsonl costs only itself; a delivered job whose line is gone gets it back from the journal', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    expect((await batch(ids, 'foreign')).code).toBe(0);
    const file = join(dir, 'foreign', 'results.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    // Line 2 lost, a blank line, garbage, a line without id, and a torn last line.
    await writeFile(file, [lines[0], '', 'garbage', '{"status":"completed"}', lines[2], lines[3], '{"id":"x","sta'].join('\n'));
    const again = await batch(ids, 'foreign');
    expect(again.code, again.stderr).toBe(0);
    expect((await resultIds('foreign')).sort()).toEqual(ids);
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ summary: { total: 4, completed: 4 } });
  });

  it('the summary counts the jobs of the current file: a job removed from it is not counted', async () => {
    expect((await batch(['a', 'b', 'c'], 'removed')).code).toBe(0);
    const again = await batch(['a', 'b'], 'removed');
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ summary: { total: 2, completed: 2 } });
    expect(again.code).toBe(0);
  });
});
