import { describe, expect, it } from 'vitest';
import { bar, fitToWidth, formatBytes, formatDuration, taskText, transferText } from '../../src/cli/format.ts';

describe('cli format', () => {
  it('formats durations for the live line', () => {
    expect(formatDuration(0)).toBe('0.0s');
    expect(formatDuration(12_345)).toBe('12.3s');
    expect(formatDuration(125_000)).toBe('2m 05s');
    expect(formatDuration(3_720_000)).toBe('1h 02m');
    expect(formatDuration(-5)).toBe('0.0s');
  });

  it('formats sizes in binary units, like the upload limits', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(25 * 1024 * 1024)).toBe('25 MiB');
  });

  it('draws a bar clamped to 0..1', () => {
    expect(bar(0.5, 10)).toBe('█████░░░░░');
    expect(bar(2, 4)).toBe('████');
    expect(bar(Number.NaN, 4)).toBe('░░░░');
  });

  it('shows status, elapsed time and the attempt, with earlier failures', () => {
    expect(taskText({ taskId: 't1', status: 'processing', elapsedMs: 3200 })).toBe('t1 · processing · 3.2s');
    expect(
      taskText({ taskId: 't1', status: 'processing', elapsedMs: 3200, attempt: 2, failedAttempts: ['provider_timeout'] }),
    ).toBe('t1 · processing · 3.2s · attempt 2 (1 failed: provider_timeout)');
  });

  it('shows a transfer with a bar when the total is known, bytes so far when not', () => {
    expect(transferText({ verb: 'uploading', label: 'a.png', loaded: 512, total: 1024, elapsedMs: 400 }, 10)).toBe(
      'uploading a.png █████░░░░░  50% 512 B/1.0 KiB 0.4s',
    );
    expect(transferText({ verb: 'downloading', label: 'v.mp4', loaded: 2048, elapsedMs: 1000 })).toBe('downloading v.mp4 2.0 KiB 1.0s');
  });

  it('cuts a line so it never wraps the terminal', () => {
    expect(fitToWidth('abcdef', 10)).toBe('abcdef');
    expect(fitToWidth('abcdefghijkl', 10)).toBe('abcdefgh…');
    expect(Array.from(fitToWidth('⠋'.repeat(20), 10))).toHaveLength(9);
    expect(fitToWidth('abc', undefined)).toBe('abc');
  });
});
