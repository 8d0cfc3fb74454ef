import { terminalJson, terminalLines, terminalText } from './terminal-text.ts';
import type { TerminalStream } from './progress.ts';

/** What the CLI writes results to: stdout, which carries nothing but results. */
export interface ResultStream {
  write(text: string): unknown;
}

const TIMESTAMPS = new Set(['created_at', 'completed_at', 'expires_at']);

function scalar(key: string, value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // The SDK's results give the service's times in epoch seconds, whatever unit the service
  // sent (its one reading, schemas/time.ts), and leave out a value that is no time. Anything
  // else (a record the SDK did not read) shows as sent.
  const ms = TIMESTAMPS.has(key) && typeof value === 'number' && Math.abs(value) < 1e11 ? value * 1000 : undefined;
  return ms === undefined ? text : `${new Date(ms).toISOString()} (${text})`;
}

type Attempt = { attempt_no?: unknown; provider?: unknown; status?: unknown; fail_reason?: unknown; elapsed_s?: unknown };

function attemptText(a: Attempt): string {
  return [
    a.attempt_no !== undefined && a.attempt_no !== null ? `#${String(a.attempt_no)}` : undefined,
    a.provider,
    a.status,
    a.fail_reason,
    typeof a.elapsed_s === 'number' ? `${a.elapsed_s}s` : undefined,
  ]
    .filter((part) => part !== undefined && part !== null && part !== '')
    .join(' ');
}

/**
 * A record (task, submission, upload) as aligned `key  value` lines: every field the service
 * sent, timestamps also as dates, one `url` line per result and one `attempt` line per attempt.
 */
export function describe(record: object, extra: readonly (readonly [string, string])[] = []): string {
  const rows: [string, string][] = [];
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined || value === null) continue;
    if (key === 'data' && Array.isArray(value)) {
      for (const item of value as { url?: unknown }[]) rows.push(['url', typeof item?.url === 'string' ? item.url : JSON.stringify(item)]);
    } else if (key === 'attempts' && Array.isArray(value)) {
      for (const attempt of value as Attempt[]) rows.push(['attempt', attemptText(attempt)]);
    } else rows.push([key, scalar(key, value)]);
  }
  rows.push(...extra.map(([k, v]) => [k, v] as [string, string]));
  // Names and values alike are the service's: each shown escaped, on its own line.
  const shown = rows.map(([key, value]) => [terminalText(key), terminalText(value)] as const);
  const width = Math.max(0, ...shown.map(([key]) => key.length)) + 2;
  return shown.map(([key, value]) => `${key.padEnd(width)}${value}`.trimEnd()).join('\n');
}

/**
 * Results on stdout (exactly one JSON document with `--json`), messages on stderr. Keeping the
 * two apart is what makes `omnimedia ... --json | jq` safe. Both through the terminal-safe
 * printer: what the service sent is shown, never interpreted.
 */
export class Output {
  constructor(
    readonly stdout: ResultStream,
    readonly stderr: TerminalStream,
    readonly json: boolean,
  ) {}

  /** The command's result: JSON, or the human lines (our line breaks kept, anything else escaped). */
  result(value: unknown, human: () => string): void {
    this.stdout.write(this.json ? `${terminalJson(value)}\n` : `${terminalLines(human())}\n`);
  }

  /** One line for the person at the terminal (stderr), never mixed into results. */
  message(line: string): void {
    this.stderr.write(`${terminalText(line)}\n`);
  }
}
