import { join } from 'node:path';
import { mkdir, stat } from 'node:fs/promises';
import { OmniMedia } from 'omnimedia';
import type { BatchProgress, BatchResult } from 'omnimedia/resources';
import { terminalJson } from '../terminal-text.ts';
import { CONNECTION_OPTIONS, OUTPUT_OPTIONS, UsageError, stringValue } from '../args.ts';
import { ResultsFile, resultRecord, type Stored } from '../batch-results.ts';
import type { Context } from '../context.ts';
import { EXIT, Interrupted, errorJson, errorText } from '../exit.ts';
import { lockDir } from '../batch-lock.ts';
import { formatDuration } from '../format.ts';
import type { Command } from './command.ts';

/** What the live line and the summary count. */
interface Counts {
  total: number;
  completed: number;
  failed: number;
  unknown: number;
  /** Refused by the service, skipped as invalid, or a wait or download that gave up. */
  other: number;
  cost: number;
}

/**
 * From here on this process's V8 favours memory over speed (this command's own process: the
 * library never sets a flag). A batch reads its file line by line, and V8 sized its young
 * generation for the rate of short-lived objects, not for what lives: a dry run of 100,000
 * lines peaked at 120 MiB of RSS with 12 MiB live, 87 MiB with this (bench: `npm run bench -- batch`).
 */
async function favourMemory(): Promise<void> {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--optimize-for-size');
}

function concurrencyOf(ctx: Context): number | 'auto' {
  const text = stringValue(ctx.values, 'concurrency') ?? 'auto';
  if (text === 'auto') return 'auto';
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1) throw new UsageError(`--concurrency: must be auto or a whole number from 1 (got "${text}")`, '--concurrency');
  return value;
}

/** `line 12 (hero-1): params.size: must be ...`, one line per issue. */
function invalidText(result: BatchResult): string[] {
  return (result.error?.issues ?? [{ path: '', message: result.error?.message ?? 'invalid' }]).map(
    (issue) => `line ${result.line ?? '?'} (${result.id}): ${issue.path ? `${issue.path}: ` : ''}${issue.message}`,
  );
}

/** Pass 1: every line checked, nothing sent; the invalid ones listed as they are found (the file never whole in memory: only the ids seen, to find a repeat). */
async function validate(ctx: Context, client: OmniMedia, file: string, print: boolean): Promise<Checked> {
  let valid = 0;
  let invalid = 0;
  // The jobs of this file: the summary counts them only (a job removed from the file is not counted).
  const ids = new Set<string>();
  for await (const line of client.batch(file, { dryRun: true, signal: ctx.signal })) {
    ids.add(line.id);
    if (line.status === 'valid') {
      valid++;
      continue;
    }
    invalid++;
    if (!print) continue;
    if (ctx.output.json) ctx.io.stdout.write(`${terminalJson(resultRecord(line), 0)}\n`);
    else for (const text of invalidText(line)) ctx.progress.log(text, 'error');
  }
  return { valid, invalid, ids };
}

/** What pass 1 found: how many lines are valid or not, and the ids of the file's jobs. */
interface Checked {
  valid: number;
  invalid: number;
  ids: ReadonlySet<string>;
}

function summaryOf({ cost, ...counts }: Counts, elapsedMs: number): Record<string, unknown> {
  return { summary: { ...counts, total_cost: cost, elapsed_ms: Math.round(elapsedMs) } };
}

export const batch: Command = {
  spec: {
    name: 'batch',
    summary: 'Run a JSONL file of jobs, resumable after any crash without paying twice.',
    usage: 'JOBS.jsonl --out DIR [options]',
    positionals: ['JOBS.jsonl'],
    options: {
      out: { type: 'string', short: 'o', value: 'DIR', description: 'Where the journal, results.jsonl and files/ go (run it again to resume)' },
      concurrency: { type: 'string', value: 'N|auto', description: 'Submissions in flight (default auto: paced to the rate the service admits, set by its 429/503)' },
      download: { type: 'boolean', description: 'Download each completed task\'s files into DIR/files/<id>[-<k>].<ext>' },
      'dry-run': { type: 'boolean', description: 'Only check every line (nothing is sent; no --out needed)' },
      'skip-invalid': { type: 'boolean', description: 'Run the valid lines when some are invalid (exit 1)' },
      'resubmit-unknown': { type: 'boolean', description: 'Submit again the jobs whose submission got no answer (each may be paid twice)' },
      ...OUTPUT_OPTIONS,
      ...CONNECTION_OPTIONS,
    },
    notes: [
      'A line: {"id": "hero-1", "op": "images.generate", "params": {...}}; op is images.generate, images.edit,',
      'videos.generate or videos.edit, params the SDK method\'s. A file path where a file goes is uploaded',
      'once (relative to the JSONL file). Running the same command again resumes: finished jobs are skipped,',
      'submitted ones waited on, and a job whose submission got no answer is reported "unknown", not sent again.',
      'Exit code 0: all completed; 1: some failed, unknown or skipped; 2: invalid input (nothing sent).',
    ],
    examples: [
      'omnimedia batch jobs.jsonl --dry-run',
      'omnimedia batch jobs.jsonl --out ./run1 --download',
      'omnimedia batch jobs.jsonl --out ./run1 --json | jq -c "select(.status != \\"completed\\")"',
    ],
  },
  async run(ctx, args) {
    await favourMemory();
    const file = args.positionals[0] ?? '';
    if (!(await stat(file).catch(() => undefined))?.isFile()) throw new UsageError(`JOBS.jsonl: no such file "${file}"`, 'JOBS.jsonl');
    const dryRun = ctx.values['dry-run'] === true;
    const out = stringValue(ctx.values, 'out');
    if (!dryRun && !out) throw new UsageError('--out DIR is needed: the journal and the results go there (run it again to resume)', '--out');
    const concurrency = concurrencyOf(ctx);
    const started = performance.now();
    // A dry run sends nothing: it needs no service address.
    const client = dryRun && !stringValue(ctx.values, 'base-url') && !ctx.io.env.OMNIMEDIA_BASE_URL?.trim() ? new OmniMedia({ baseURL: 'http://dry-run.invalid', logLevel: 'off' }) : ctx.client();
    const checked = await validate(ctx, client, file, true);
    if (dryRun || (checked.invalid > 0 && ctx.values['skip-invalid'] !== true)) {
      const words = `${checked.valid} valid, ${checked.invalid} invalid line${checked.invalid === 1 ? '' : 's'}`;
      if (ctx.output.json) ctx.io.stdout.write(`${terminalJson({ summary: { valid: checked.valid, invalid: checked.invalid, sent: false } }, 0)}\n`);
      else ctx.output.message(checked.invalid > 0 ? `${words}: nothing was sent${dryRun ? '' : ' (fix them, or pass --skip-invalid)'}` : `${words}`);
      return checked.invalid > 0 ? EXIT.usage : EXIT.ok;
    }
    if (out === undefined) return EXIT.ok; // a dry run: done above
    await mkdir(out, { recursive: true });
    const lock = await lockDir(out, (text) => ctx.progress.log(text, 'warn'));
    try {
      return await runLocked(ctx, client, file, out, concurrency, checked, started);
    } finally {
      await lock.release();
    }
  },
};

/** Pass 2, DIR locked: the batch run, its lines into results.jsonl, the summary; the exit code. */
async function runLocked(ctx: Context, client: OmniMedia, file: string, out: string, concurrency: number | 'auto', checked: Checked, started: number): Promise<number> {
  const results = await ResultsFile.open(join(out, 'results.jsonl'), join(out, 'journal.jsonl'));
  const counts: Counts = { total: checked.valid + checked.invalid, completed: 0, failed: 0, unknown: 0, other: 0, cost: 0 };
  const count = ({ id, status, cost }: Stored, sign: 1 | -1) => {
    if (!checked.ids.has(id)) return;
    counts.cost += sign * cost;
    const key = status === 'completed' || status === 'failed' || status === 'unknown' ? status : 'other';
    counts[key] += sign;
  };
  for (const stored of results.statuses()) count(stored, 1);
  const running = new Set<string>();
  let doneThisRun = 0;
  const live = ctx.progress.line(() => {
    const seconds = (performance.now() - started) / 1000;
    const rate = doneThisRun / Math.max(seconds, 1e-3);
    const left = counts.total - counts.completed - counts.failed - counts.unknown - counts.other;
    const eta = rate > 0 && left > 0 ? ` · ETA ${formatDuration((left / rate) * 1000)}` : '';
    const queued = Math.max(0, left - running.size);
    return `${counts.completed} done · ${counts.failed + counts.unknown + counts.other} failed · ${running.size} running · ${queued} queued · ${rate.toFixed(1)}/s${eta} · total_cost ${counts.cost}`;
  });
  const onProgress = (job: BatchProgress) => {
    if (job.task_id && job.status !== 'submitting') running.add(job.id);
    live.update();
  };
  let stopped: { error: unknown } | undefined;
  try {
    for await (const line of client.batch(file, {
      journal: join(out, 'journal.jsonl'),
      concurrency,
      skipInvalid: true,
      resubmitUnknown: ctx.values['resubmit-unknown'] === true,
      signal: ctx.signal,
      onProgress,
      ...(ctx.values.download === true ? { download: join(out, 'files') } : {}),
    })) {
      running.delete(line.id);
      const written = await results.write(line);
      if (!written) continue;
      if (written.earlier) count(written.earlier, -1);
      count(written.now, 1);
      doneThisRun++;
      if (ctx.output.json) ctx.io.stdout.write(`${terminalJson(resultRecord(line), 0)}\n`);
      else if (line.status !== 'completed' || line.error) ctx.progress.log(`${line.id}: ${line.status}${line.task_id ? ` (task ${line.task_id})` : ''}${line.error ? `: ${line.error.message}` : ''}`, 'warn');
      live.update();
    }
  } catch (error) {
    // After a request went out, never "nothing was sent": the error says what was, exit 1.
    if (ctx.signal.aborted || !ctx.sent.requests) throw error;
    stopped = { error };
  } finally {
    live.end();
    await results.close();
  }
  if (stopped) {
    ctx.io.stderr.write(`${errorText(stopped.error, ctx.flagFor, ctx.sent)}\n`);
    if (ctx.output.json) ctx.io.stdout.write(`${terminalJson(errorJson(stopped.error, ctx.flagFor, ctx.sent), 0)}\n`);
  }
  if (ctx.signal.aborted) throw new Interrupted(undefined, `interrupted: submitted jobs go on on the service. Resume with the same command (${out}/journal.jsonl knows where each job stands)`);
  const elapsed = performance.now() - started;
  if (ctx.output.json) ctx.io.stdout.write(`${terminalJson(summaryOf(counts, elapsed), 0)}\n`);
  else
    ctx.output.message(
      `${counts.completed} of ${counts.total} completed, ${counts.failed} failed, ${counts.unknown} unknown, ${counts.other} other (refused, invalid, waits given up); total_cost ${counts.cost}; ${doneThisRun} line${doneThisRun === 1 ? '' : 's'} in ${formatDuration(elapsed)}; results in ${join(out, 'results.jsonl')}`,
    );
  return counts.completed === counts.total && !stopped ? EXIT.ok : EXIT.taskFailed;
}
