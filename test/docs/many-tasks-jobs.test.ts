// The jobs file that opens docs/many-tasks.md passes its own `--dry-run`, in a directory
// holding what the page says to make there (the mock's `--samples .`): as written it named
// `./shots/hero-1.png`, which no reader has ("2 valid, 1 invalid line: nothing was sent").
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { sampleFiles } from 'omnimedia/testing';
import { runCli } from '../cli/helpers/run.ts';
import { codeBlocks, read } from '../helpers/docs.ts';
import { runnableBlocks } from '../helpers/runnable.ts';

it("docs/many-tasks.md's jobs.jsonl passes `npx omnimedia batch jobs.jsonl --dry-run` beside the sample inputs", async () => {
  const page = read('docs/many-tasks.md');
  const jobs = codeBlocks('docs/many-tasks.md').find((b) => b.info === 'jsonl' && page.indexOf(b.code) > page.indexOf('`jobs.jsonl`, one job a line'));
  const how = runnableBlocks('docs/many-tasks.md')[0]!.how;
  expect('mock' in how && how.mock.includes('--samples')).toBe(true);
  const dir = await mkdtemp(join(tmpdir(), 'many-tasks-'));
  try {
    for (const [name, bytes] of await sampleFiles()) await writeFile(join(dir, name), bytes);
    await writeFile(join(dir, 'jobs.jsonl'), jobs!.code);
    const run = await runCli(['batch', join(dir, 'jobs.jsonl'), '--dry-run', '--json']);
    expect(run.stderr).not.toMatch(/invalid/);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ summary: { valid: 3, invalid: 0, sent: false } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
