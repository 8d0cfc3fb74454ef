// `omnimedia batch` as real processes, on what "never pays twice" rests on: a journal write cut
// short by a file-size limit (`prlimit --fsize`, as on a full disk) stops the batch before its
// POST, and two runs on one DIR at once: the second refuses, naming the first's pid and host.
// One accepted POST per job, counted at the mock.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countingMock, startBatch, type CountingMock } from '../helpers/batch-cli.ts';

const PRLIMIT = spawnSync('prlimit', ['--version'], { stdio: 'ignore' }).status === 0;
const job = (id: string) => JSON.stringify({ id, op: 'images.generate', params: { model: 'omni-image', prompt: `job ${id}` } });

let mock: CountingMock;
let dir: string;

beforeAll(async () => {
  mock = await countingMock({ durations: { pending: 100, image: 300 }, callbackRetryDelays: [] });
});

afterAll(async () => {
  await mock.close();
});

async function fresh(ids: string[]): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), 'omnimedia-batch-own-'));
  await writeFile(join(dir, 'jobs.jsonl'), `${ids.map(job).join('\n')}\n`);
}

describe('omnimedia batch: on disk before the POST, one owner per DIR', () => {
  it.skipIf(!PRLIMIT)('a journal line cut short by a file-size limit: nothing more is sent, exit 1 with the truth, and the resume pays each job once', async () => {
    await fresh(['a']);
    const first = await startBatch(['jobs.jsonl', '--out', 'out', '--json'], mock.server.url, dir).done;
    expect(first.code).toBe(0);
    await writeFile(join(dir, 'jobs.jsonl'), `${['a', 'b', 'c'].map(job).join('\n')}\n`);
    // The journal may grow 20 bytes: the next `sending` line (b's) is written in part.
    const size = (await stat(join(dir, 'out', 'journal.jsonl'))).size;
    const limited = await startBatch(['jobs.jsonl', '--out', 'out', '--concurrency', '1'], mock.server.url, dir, ['prlimit', `--fsize=${size + 20}`]).done;
    expect(mock.accepted.get('job b') ?? 0).toBe(0);
    expect(limited.code, limited.stderr).not.toBe(0);
    expect(limited.stderr).toMatch(/journal/);
    expect(limited.stderr).not.toMatch(/invalid input/);
    const last = await startBatch(['jobs.jsonl', '--out', 'out', '--json'], mock.server.url, dir).done;
    expect(last.code, last.stderr).toBe(0);
    expect(['a', 'b', 'c'].map((id) => mock.accepted.get(`job ${id}`))).toEqual([1, 1, 1]);
    const results = (await readFile(join(dir, 'out', 'results.jsonl'), 'utf8')).trim().split('\n');
    expect(results.map((line) => (JSON.parse(line) as { id: string }).id).sort()).toEqual(['a', 'b', 'c']);
    await rm(dir, { recursive: true, force: true });
  }, 180_000);

  it('two runs on one DIR at once: the second refuses at once naming the owner; a dead owner\'s lock is taken over with a warning', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `two-${i}`);
    await fresh(ids);
    let held!: () => void;
    const hold = new Promise<void>((resolve) => (held = resolve));
    // The first run's submissions are held until the second has tried.
    mock.hook = (event) => (event.kind === 'submission' ? hold : undefined);
    const first = startBatch(['jobs.jsonl', '--out', 'out'], mock.server.url, dir);
    const lock = join(dir, 'out', 'lock');
    for (let i = 0; i < 300 && !(await stat(lock).catch(() => undefined)); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await startBatch(['jobs.jsonl', '--out', 'out'], mock.server.url, dir).done;
    held();
    mock.hook = undefined;
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`pid ${first.child.pid}`);
    expect(second.stderr).toContain(hostname());
    expect(second.stderr).toContain('rm out/lock');
    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    expect(ids.map((id) => mock.accepted.get(`job ${id}`))).toEqual(ids.map(() => 1));
    const results = (await readFile(join(dir, 'out', 'results.jsonl'), 'utf8')).trim().split('\n');
    expect(results).toHaveLength(ids.length);

    // A lock whose process is gone (this host): taken over, with one warning.
    await writeFile(lock, JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), since: new Date().toISOString() }));
    const again = await startBatch(['jobs.jsonl', '--out', 'out'], mock.server.url, dir).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.match(/took over/g)).toHaveLength(1);
    expect(await stat(lock).catch(() => undefined)).toBeUndefined();
    await rm(dir, { recursive: true, force: true });
  }, 180_000);
});
