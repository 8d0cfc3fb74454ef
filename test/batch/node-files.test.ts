// The batch's Node files: JSON Lines read a chunk at a time, and the journal file: each entry on
// disk before its write resolves, the last entry of a job wins, a line a crash cut short dropped.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFileJournal, readJsonLines } from '../../src/batch/node-files.ts';

let dir: string;
beforeEach(async () => void (dir = await mkdtemp(join(tmpdir(), 'omnimedia-batch-'))));
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('readJsonLines', () => {
  it('yields each line with its number, skips blank lines, and reports a line that is not JSON', async () => {
    const file = join(dir, 'jobs.jsonl');
    await writeFile(file, '{"a":1}\r\n\n  \nnot json\n{"b":2}');
    const lines = [];
    for await (const batch of readJsonLines(file)) lines.push(...batch);
    expect(lines.map((l) => [l.line, l.value ?? 'error'])).toEqual([[1, { a: 1 }], [4, 'error'], [5, { b: 2 }]]);
  });

  it('reads lines across its 64 KiB chunks whole: a character of several bytes, a CRLF and a line split between two chunks', async () => {
    const file = join(dir, 'jobs.jsonl');
    // Each line 1,000 bytes or so with a 3-byte and a 4-byte character: chunk ends fall inside lines and characters.
    const prompts = Array.from({ length: 300 }, (_, i) => `${i} ☃ 🦊 ${'x'.repeat(980 + (i % 7))}`);
    await writeFile(file, prompts.map((prompt) => JSON.stringify({ prompt })).join('\r\n'));
    const lines = [];
    let batches = 0;
    for await (const batch of readJsonLines(file)) {
      batches++;
      lines.push(...batch);
    }
    expect(batches).toBeGreaterThan(1);
    expect(lines.map((l) => l.line)).toEqual(prompts.map((_, i) => i + 1));
    expect(lines.map((l) => (l.value as { prompt: string }).prompt)).toEqual(prompts);
  });
});

describe('readJsonLines: one long line', () => {
  it('a 4 MiB line across 64 chunks, between two short ones, is read whole (the unfinished line is kept as pieces, never split again)', async () => {
    const file = join(dir, 'long.jsonl');
    const long = 'y'.repeat(4 * 1024 * 1024);
    await writeFile(file, `{"a":1}\n${JSON.stringify({ long })}\n{"b":2}`);
    const lines = [];
    for await (const batch of readJsonLines(file)) lines.push(...batch);
    expect(lines.map((l) => l.line)).toEqual([1, 2, 3]);
    expect((lines[1]?.value as { long: string }).long).toHaveLength(long.length);
  });
});

describe('the journal file (openFileJournal)', () => {
  it('a foreign line in the middle, or one in an unknown state, costs only itself', async () => {
    const file = join(dir, 'journal.jsonl');
    const entry = (id: string, state: string) => JSON.stringify({ id, state, at: 1 });
    await writeFile(file, [entry('a', 'sending'), '', 'garbage', entry('x', 'paused'), entry('b', 'submitted'), ''].join('\n'));
    const journal = await openFileJournal(file);
    expect((await journal.read()).map((e) => e.id)).toEqual(['a', 'b']);
    await journal.close?.();
  });

  it('reads back the last entry of each job after a reopen; many writes at once all reach the file', async () => {
    const file = join(dir, 'out', 'journal.jsonl');
    const journal = await openFileJournal(file);
    await Promise.all(Array.from({ length: 50 }, (_, i) => journal.write({ id: `j${i}`, state: 'sending', at: i })));
    await journal.write({ id: 'j1', state: 'submitted', at: 99, task_id: 'task_1' });
    await journal.close?.();
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(51);
    const again = await openFileJournal(file);
    const entries = await again.read();
    expect(entries).toHaveLength(50);
    expect(entries.find((e) => e.id === 'j1')).toEqual({ id: 'j1', state: 'submitted', at: 99, task_id: 'task_1' });
    await again.close?.();
  });

  it('drops a last line a crash cut short, and appends after it on a line of its own', async () => {
    const file = join(dir, 'journal.jsonl');
    await writeFile(file, `${JSON.stringify({ id: 'a', state: 'submitted', at: 1, task_id: 't' })}\n`);
    await appendFile(file, '{"id":"b","state":"sen');
    const journal = await openFileJournal(file);
    expect((await journal.read()).map((e) => e.id)).toEqual(['a']);
    await journal.write({ id: 'c', state: 'sending', at: 2 });
    await journal.close?.();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.map((l) => (l ? (JSON.parse(l) as { id: string }).id : ''))).toEqual(['a', 'c', '']);
  });
});
