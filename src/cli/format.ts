// Pure text for the terminal: durations, sizes, bars and the live lines. No I/O here, so the
// rendering is tested without a terminal.

/** `0.4s`, `12.3s`, `2m 05s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h ${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB'] as const;

/** Binary units, as the SDK's upload limits (25 MiB, 50 MiB) are written. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

/** `█████░░░░░` for a fraction in 0..1. */
export function bar(fraction: number, width: number): string {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const filled = Math.round(clamped * width);
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

/** What the live line shows of a task being waited on. */
export interface TaskView {
  taskId: string;
  /** `submitting` until the service answered, then the task's status. */
  status: string;
  elapsedMs: number;
  /** The attempt the service is on, when it says. */
  attempt?: number | undefined;
  /** `fail_reason`s of earlier attempts, shown so a retry on the service is visible. */
  failedAttempts?: readonly string[] | undefined;
  polls?: number | undefined;
}

/** `task_abc · processing · 12.3s · attempt 2 (1 failed: provider_timeout)`. */
export function taskText(view: TaskView): string {
  const parts = [view.taskId, view.status, formatDuration(view.elapsedMs)];
  if (view.attempt !== undefined) {
    const failed = view.failedAttempts ?? [];
    parts.push(`attempt ${view.attempt}${failed.length ? ` (${failed.length} failed: ${failed.join(', ')})` : ''}`);
  }
  return parts.join(' · ');
}

export interface TransferView {
  /** `uploading`, `downloading`. */
  verb: string;
  label: string;
  loaded: number;
  total?: number | undefined;
  elapsedMs: number;
}

/** `uploading photo.png ██████░░░░ 60% 1.2/2.0 MiB 0.4s`; without a total, bytes so far. */
export function transferText(view: TransferView, barWidth = 20): string {
  const { verb, label, loaded, total } = view;
  if (total === undefined || total <= 0)
    return `${verb} ${label} ${formatBytes(loaded)} ${formatDuration(view.elapsedMs)}`;
  const fraction = loaded / total;
  const percent = `${Math.floor(Math.min(1, fraction) * 100)}%`.padStart(4);
  return `${verb} ${label} ${bar(fraction, barWidth)} ${percent} ${formatBytes(loaded)}/${formatBytes(total)} ${formatDuration(view.elapsedMs)}`;
}

/**
 * Cut a line to the terminal's width (counting code points, which is right for the text we
 * print) so it never wraps: a wrapped line would break the redraw.
 */
export function fitToWidth(line: string, columns: number | undefined): string {
  if (!columns || columns <= 1) return line;
  const chars = Array.from(line);
  return chars.length < columns ? line : `${chars.slice(0, columns - 2).join('')}…`;
}
