import type { TaskPromise, TaskResult, ValidationIssue, WaitOptions } from 'omnimedia';
import { TaskFailedError, ValidationError, WaitTimeoutError } from 'omnimedia';
import { resolveWaitOptions } from '../option-checks.ts';
import { secondsValue, stringValue } from './args.ts';
import type { Context } from './context.ts';
import { checkOutDir, downloadResults, type SavedFile } from './download.ts';
import { EXIT, Interrupted } from './exit.ts';
import { formatDuration } from './format.ts';
import { describe } from './output.ts';
import type { TaskProgress } from './progress.ts';

/** `--wait`, `--out`, `--timeout`, `--interval` as the flow needs them. */
export interface WaitFlags {
  wait: boolean;
  out: string | undefined;
  waitOptions: Pick<WaitOptions, 'timeout' | 'initialDelay' | 'interval'>;
}

/**
 * The wait flags, checked by the SDK's own rule for a wait's options (option-checks.ts) and
 * `--out` by `checkOutDir`, before anything is sent: the SDK would check them only in `.wait()`
 * and the download, after the billed submission.
 */
export async function waitFlags(ctx: Context): Promise<WaitFlags> {
  const out = stringValue(ctx.values, 'out');
  const timeout = secondsValue(ctx.values, 'timeout');
  const interval = secondsValue(ctx.values, 'interval');
  const waitOptions = {
    ...(timeout !== undefined ? { timeout } : {}),
    ...(interval !== undefined ? { initialDelay: interval, interval } : {}),
  };
  try {
    resolveWaitOptions(waitOptions);
  } catch (error) {
    throw error instanceof ValidationError ? inFlagUnits(ctx, error, waitOptions) : error;
  }
  if (out !== undefined) await checkOutDir(out);
  return {
    // Downloading the results needs them first.
    wait: ctx.values.wait === true || out !== undefined,
    out,
    waitOptions,
  };
}

/** The SDK's issues (in ms, of `timeout`, `interval`, `initialDelay`) told against the flags the user typed, in seconds. */
function inFlagUnits(ctx: Context, error: ValidationError, options: { timeout?: number; interval?: number }): ValidationError {
  const issues = new Map<string, ValidationIssue>();
  for (const issue of error.issues) {
    // --interval sets both the first delay and the interval.
    const flag = issue.path === 'timeout' ? 'timeout' : 'interval';
    if (issues.has(flag) && issue.path !== flag) continue;
    const seconds = stringValue(ctx.values, flag);
    issues.set(flag, { path: flag, message: `${issue.message}; --${flag} is in seconds: ${seconds} s = ${options[flag]} ms` });
  }
  return new ValidationError([...issues.values()], 'wait flags');
}

/** An abort from Ctrl-C becomes `Interrupted` with the task id, so the user can resume. */
function interruptedOr(ctx: Context, error: unknown, taskId: string | undefined, message?: string): unknown {
  return ctx.signal.aborted ? new Interrupted(taskId, message) : error;
}

/** Submit, print the submission (or wait for the task, with progress, and download it). */
export async function submitTask(
  ctx: Context,
  submission: TaskPromise<{ task_id: string; status: string }>,
  flags: WaitFlags,
): Promise<number> {
  const live = ctx.progress.task();
  let submitted;
  try {
    submitted = await submission;
  } catch (error) {
    live.end();
    // The POST may have reached the service before the abort: say so rather than guess.
    throw interruptedOr(ctx, error, undefined, 'interrupted while submitting; the service may have created the task all the same');
  }
  ctx.sent.taskId = submitted.task_id;
  live.submitted(submitted.task_id, submitted.status);
  if (!flags.wait) {
    live.end();
    ctx.progress.stop();
    ctx.output.result(submitted, () => describe(submitted));
    ctx.output.message(`Follow it with: ${ctx.command} tasks wait ${submitted.task_id}`);
    return EXIT.ok;
  }
  return finish(ctx, submitted.task_id, live, flags, (options) => submission.wait(options));
}

/** Wait for a task by id (`tasks wait`), with progress, and download it. */
export async function waitForTask(ctx: Context, taskId: string, flags: WaitFlags): Promise<number> {
  const live = ctx.progress.task(taskId);
  live.submitted(taskId, 'waiting');
  return finish(ctx, taskId, live, flags, (options) => ctx.client().tasks.wait(taskId, options));
}

async function finish(
  ctx: Context,
  taskId: string,
  live: TaskProgress,
  flags: WaitFlags,
  wait: (options: WaitOptions) => Promise<TaskResult>,
): Promise<number> {
  let task: TaskResult;
  try {
    task = await wait({
      ...flags.waitOptions,
      signal: ctx.signal,
      onProgress: (seen, info) => live.update(seen, info.polls),
    });
  } catch (error) {
    live.end();
    if (error instanceof TaskFailedError) {
      ctx.progress.log(`✖ ${taskId} ${error.task.status}${error.failReason ? ` (${error.failReason})` : ''} after ${formatDuration(live.elapsedMs)}`, 'error');
    } else if (error instanceof WaitTimeoutError) {
      ctx.progress.log(`⏱ ${taskId} still running after ${formatDuration(live.elapsedMs)}`, 'warn');
    }
    throw interruptedOr(ctx, error, taskId);
  }
  live.end();
  ctx.progress.log(`✔ ${taskId} ${task.status} in ${formatDuration(live.elapsedMs)}`, 'ok');
  let saved: SavedFile[] = [];
  if (flags.out !== undefined) {
    try {
      saved = await downloadResults(ctx, task, flags.out);
    } catch (error) {
      throw interruptedOr(ctx, error, taskId);
    }
  }
  ctx.progress.stop();
  printTask(ctx, task, saved);
  return EXIT.ok;
}

/** A finished task on stdout, with the files saved when `--out` was given. */
export function printTask(ctx: Context, task: TaskResult, saved: readonly SavedFile[] = []): void {
  const json = saved.length > 0 ? { ...task, downloaded: saved } : task;
  ctx.output.result(json, () => describe(task, saved.map((file) => ['saved', file.path] as const)));
}
