import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.ts';

function stream(isTTY: boolean, columns = 80) {
  const writes: string[] = [];
  return { writes, isTTY, columns, write: (text: string) => writes.push(text), text: () => writes.join('') };
}

describe('cli progress, not a terminal', () => {
  it('prints one plain line per new status or attempt, no escape codes', () => {
    let now = 0;
    const out = stream(false);
    const progress = createProgress(out, { now: () => now });
    const task = progress.task();
    now = 300;
    task.submitted('t1', 'pending');
    now = 3_300;
    task.update({ task_id: 't1', status: 'processing', attempt_count: 1, attempts: [] }, 1);
    now = 5_300;
    task.update({ task_id: 't1', status: 'processing', attempt_count: 1, attempts: [] }, 2);
    now = 9_000;
    task.update(
      { task_id: 't1', status: 'processing', attempt_count: 2, attempts: [{ status: 'failed', fail_reason: 'provider_timeout' }] },
      3,
    );
    task.end();
    expect(out.text()).toBe(
      [
        't1 · pending · 0.3s',
        't1 · processing · 3.3s · attempt 1',
        't1 · processing · 9.0s · attempt 2 (1 failed: provider_timeout)',
        '',
      ].join('\n'),
    );
    expect(out.text()).not.toMatch(/\x1b/);
  });

  it('prints nothing with --quiet', () => {
    const out = stream(true);
    const progress = createProgress(out, { quiet: true });
    progress.task().submitted('t1', 'pending');
    progress.log('hello');
    expect(out.writes).toEqual([]);
  });
});

describe('cli progress on a terminal', () => {
  it('redraws one live line in place with a spinner, and clears it on end', () => {
    let now = 0;
    const out = stream(true);
    const progress = createProgress(out, { now: () => now, tickMs: 0 });
    const task = progress.task();
    expect(out.writes.at(-1)).toBe('⠋ … · submitting · 0.0s');
    now = 1_500;
    task.submitted('t1', 'pending');
    // Back to the start of the line, erase, draw again: never a newline.
    expect(out.writes.slice(-2)).toEqual(['\r\x1b[J', '⠋ t1 · pending · 1.5s']);
    task.update({ task_id: 't1', status: 'completed', attempt_count: 1 });
    task.end();
    expect(out.writes.at(-1)).toBe('\r\x1b[J');
    expect(out.text()).not.toContain('\n');
  });

  it('keeps several live lines (uploads in parallel) and prints logs above them', () => {
    const out = stream(true);
    const progress = createProgress(out, { now: () => 1000, tickMs: 0 });
    const a = progress.transfer('uploading', 'a.png', 2048);
    progress.transfer('uploading', 'b.png', 1024);
    a.update(1024);
    expect(out.writes.slice(-2)).toEqual([
      '\r\x1b[1A\x1b[J',
      '⠋ uploading a.png ██████████░░░░░░░░░░  50% 1.0 KiB/2.0 KiB 0.0s\n⠋ uploading b.png ░░░░░░░░░░░░░░░░░░░░   0% 0 B/1.0 KiB 0.0s',
    ]);
    progress.log('uploaded a.png');
    expect(out.writes.slice(-3)).toEqual(['\r\x1b[1A\x1b[J', 'uploaded a.png\n', expect.stringContaining('uploading a.png')]);
    progress.stop();
    expect(out.writes.at(-1)).toBe('\r\x1b[1A\x1b[J');
  });

  it('fits the line to the terminal width', () => {
    const out = stream(true, 20);
    const progress = createProgress(out, { now: () => 0, tickMs: 0 });
    progress.task('task_with_a_very_long_identifier');
    expect(Array.from(out.writes.at(-1) ?? '')).toHaveLength(19);
    progress.stop();
  });
});

describe('cli progress colours', () => {
  it('colours outcome lines only where the terminal has colours', () => {
    const colored = { ...stream(true), hasColors: () => true };
    createProgress(colored, { tickMs: 0 }).log('✔ done', 'ok');
    expect(colored.text()).toBe('\x1b[32m✔ done\x1b[39m\n');
    const plain = { ...stream(true), hasColors: () => false };
    createProgress(plain, { tickMs: 0 }).log('✔ done', 'ok');
    expect(plain.text()).toBe('✔ done\n');
  });
});

describe('cli progress: strings from the service', () => {
  const EVIL = '\x1b]0;pwned\x07\x1b[2J\x9b31m\u202Eproc\nessing';
  // Our own sequences: back to the first live line, erase, colours.
  const OWN = /\x1b\[(\d+A|J|\d+m)/g;

  it('on a terminal, the live line and log lines show them escaped; only our own sequences reach the terminal', () => {
    const out = stream(true);
    const progress = createProgress(out, { tickMs: 0 });
    const task = progress.task();
    task.submitted(EVIL, EVIL);
    task.update({ task_id: EVIL, status: EVIL, attempt_count: 2, attempts: [{ status: 'failed', fail_reason: EVIL }] });
    progress.log(`uploaded ${EVIL}`);
    progress.transfer('downloading', EVIL, 10).update(5);
    const text = out.text().replace(OWN, '');
    expect(text).not.toMatch(/[\x1b\x07\x9b\u202e]/);
    expect(text).toContain('\\x1b]0;pwned\\x07');
    expect(text).toContain('\\u{202e}proc\\nessing');
  });

  it('not on a terminal, one line per log, with no escape code at all', () => {
    const out = stream(false);
    const progress = createProgress(out);
    progress.task().submitted('t1', EVIL);
    progress.log(EVIL);
    expect(out.text()).not.toMatch(/[\x1b\x07\x9b\u202e]/);
    expect(out.text().split('\n')).toHaveLength(3);
  });
});
