// The studio's journal: the batch's rules (DESIGN 14) for the studio's submissions.
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StudioJournal, jobsOf } from '../../src/studio/journal.ts';
import { tempDir } from './helpers.ts';

const removals: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const remove of removals.splice(0)) await remove();
});
async function dir(): Promise<string> {
  const made = await tempDir();
  removals.push(made.remove);
  return made.dir;
}
const quiet = { warn: () => {} };
const params = { model: 'omni-image', prompt: 'a fox' };

describe('the studio journal', () => {
  it('a submission sent with no answer recorded is unknown after a restart (never sent again); an answered one runs; a finished one keeps its task and files', async () => {
    const where = await dir();
    const first = await StudioJournal.open(where, quiet);
    await first.write({ type: 'submitting', id: 'a', op: 'images.generate', params, at: 1 });
    expect(first.jobs().map((job) => job.state)).toEqual(['submitting']);
    await first.write({ type: 'submitting', id: 'b', op: 'images.generate', params, at: 2 });
    await first.write({ type: 'answered', id: 'b', task_id: 'task_b', status: 200, at: 3 });
    await first.write({ type: 'submitting', id: 'c', op: 'videos.generate', params, at: 4 });
    await first.write({ type: 'answered', id: 'c', status: 429, at: 5 });
    await first.write({ type: 'submitting', id: 'd', op: 'images.generate', params, at: 6 });
    await first.write({ type: 'answered', id: 'd', task_id: 'task_d', status: 200, at: 7 });
    await first.write({ type: 'finished', id: 'd', task: { task_id: 'task_d', status: 'completed' }, files: ['task_d-0.png'], at: 8 });
    await first.close();
    // A torn last line (the process died mid-write) costs only itself.
    await writeFile(join(where, 'journal.jsonl'), `${await readFile(join(where, 'journal.jsonl'), 'utf8')}{"type":"answ`);
    const second = await StudioJournal.open(where, quiet);
    expect(second.jobs().map(({ id, state, task_id, status, files }) => ({ id, state, task_id, status, files }))).toEqual([
      { id: 'a', state: 'unknown', task_id: undefined, status: undefined, files: undefined },
      { id: 'b', state: 'running', task_id: 'task_b', status: undefined, files: undefined },
      { id: 'c', state: 'refused', task_id: undefined, status: 429, files: undefined },
      { id: 'd', state: 'finished', task_id: 'task_d', status: undefined, files: ['task_d-0.png'] },
    ]);
    await second.close();
  });

  it('every line is on disk when its write resolves', async () => {
    const where = await dir();
    const journal = await StudioJournal.open(where, quiet);
    await journal.write({ type: 'submitting', id: 'a', op: 'images.edit', params, at: 1 });
    expect(jobsOf((await readFile(join(where, 'journal.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line)))).toHaveLength(1);
    await journal.close();
  });

  it('one owner per DIR: a second studio is refused naming the first; a lock whose process is gone from this host is taken over with a warning', async () => {
    const where = await dir();
    const owner = await StudioJournal.open(where, quiet);
    await expect(StudioJournal.open(where, quiet)).rejects.toThrow(`in use by another studio (pid ${process.pid} on ${hostname()}`);
    await owner.close();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    await writeFile(join(where, 'studio.lock'), JSON.stringify({ pid: Number(gone), host: hostname() }));
    const warnings: string[] = [];
    const next = await StudioJournal.open(where, { warn: (line) => warnings.push(line) });
    expect(warnings).toEqual([expect.stringContaining(`from pid ${gone}, which is gone`)]);
    await next.close();
    // Another host's lock is never taken over: its process cannot be checked from here.
    await writeFile(join(where, 'studio.lock'), JSON.stringify({ pid: Number(gone), host: 'another-host' }));
    await expect(StudioJournal.open(where, quiet)).rejects.toThrow('on another-host');
  });
});
