// Many tasks from the installed tarball: `omnimedia batch` (the installed bin) runs a JSONL file
// against the mock and, run again, resumes (nothing sent twice); client.batch() in process; and
// omnimedia/bullmq with the app's own bullmq (its optional peer): the processor on a job of
// BullMQ's shape marks it before sending, stores the task id, and refuses a retry that finds
// the mark without a task id with the app's UnrecoverableError (no Redis needed for that).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnrecoverableError } from 'bullmq';
import { OmniMedia } from 'omnimedia';
import { omniMediaProcessor } from 'omnimedia/bullmq';

const base = process.env.OMNIMEDIA_BASE_URL;
const bin = new URL('../node_modules/.bin/omnimedia', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'omnimedia-batch-flow-'));
try {
  const jobs = ['a', 'b', 'c'].map((id) => JSON.stringify({ id, op: 'images.generate', params: { model: 'omni-image', prompt: `job ${id}` } }));
  writeFileSync(join(dir, 'jobs.jsonl'), `${jobs.join('\n')}\n`);
  const env = { PATH: process.env.PATH, OMNIMEDIA_BASE_URL: base, OMNIMEDIA_API_KEY: 'sk-package' };
  const run = () => execFileSync(bin, ['batch', 'jobs.jsonl', '--out', 'out', '--json'], { cwd: dir, env, encoding: 'utf8' });
  const first = JSON.parse(run().trim().split('\n').at(-1));
  const again = run().trim().split('\n');
  const results = readFileSync(join(dir, 'out', 'results.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  if (first.summary?.completed !== 3 || again.length !== 1 || results.length !== 3 || !results.every((r) => r.status === 'completed' && r.task_id))
    throw new Error(`omnimedia batch: ${JSON.stringify({ first, again, results }).slice(0, 600)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const client = new OmniMedia({ baseURL: base, apiKey: 'sk-package' });
const lines = [];
for await (const line of client.batch([{ id: 'x', op: 'images.generate', params: { model: 'omni-image', prompt: 'x' } }])) lines.push(line);
if (lines.length !== 1 || lines[0].status !== 'completed') throw new Error(`client.batch: ${JSON.stringify(lines)}`);

const job = (data) => ({ id: '1', data, updates: [], async updateData(next) { this.updates.push(next.omnimedia?.state); }, async updateProgress() {} });
const processor = omniMediaProcessor(client);
const fresh = job({ id: 'y', op: 'images.generate', params: { model: 'omni-image', prompt: 'y' } });
const result = await processor(fresh);
if (result.status !== 'completed' || fresh.updates[0] !== 'sending' || fresh.updates[1] !== 'submitted') throw new Error(`omniMediaProcessor: ${JSON.stringify({ result, updates: fresh.updates })}`);
const marked = job({ id: 'z', op: 'images.generate', params: { model: 'omni-image', prompt: 'z' }, omnimedia: { id: 'z', state: 'sending', at: 1, op: 'images.generate' } });
const refused = await processor(marked).then(() => undefined, (error) => error);
if (!(refused instanceof UnrecoverableError)) throw new Error(`a mark without a task id: ${String(refused)}`);
console.log(`omnimedia batch (installed bin, resumed), client.batch and omnimedia/bullmq (node ${process.version} esm): 5 jobs, the unknown one refused`);
