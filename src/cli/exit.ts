import {
  APIError,
  AuthenticationError,
  OmniMediaError,
  TaskFailedError,
  ValidationError,
  WaitTimeoutError,
} from 'omnimedia';
import { terminalText } from './terminal-text.ts';
import { UsageError } from './args.ts';
import { GLOBAL_COMMAND, withCommand } from './invocation.ts';

/** The CLI's exit codes, for scripts. Documented in `omnimedia --help` and docs/cli.md. */
export const EXIT = {
  ok: 0,
  taskFailed: 1,
  usage: 2,
  api: 3,
  timeout: 4,
  /** A bug in the CLI, not a problem with the input or the service. */
  internal: 70,
  /** 128 + SIGINT, as shells report Ctrl-C. */
  interrupted: 130,
} as const;

/** Ctrl-C: the CLI stopped; a task it submitted goes on on the service. */
export class Interrupted extends Error {
  override name = 'Interrupted';
  taskId: string | undefined;

  constructor(taskId?: string, message?: string) {
    super(
      message ??
        (taskId
          ? `stopped waiting; task ${taskId} goes on on the service. Resume with: omnimedia tasks wait ${taskId}`
          : 'interrupted'),
    );
    this.taskId = taskId;
  }
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof Interrupted) return EXIT.interrupted;
  if (error instanceof UsageError || error instanceof ValidationError) return EXIT.usage;
  if (error instanceof TaskFailedError) return EXIT.taskFailed;
  if (error instanceof WaitTimeoutError) return EXIT.timeout;
  if (error instanceof APIError) return EXIT.api;
  // The SDK's own configuration errors (no base URL, a bad one) are usage errors of the CLI.
  if (error instanceof OmniMediaError) return EXIT.usage;
  return EXIT.internal;
}

/**
 * What a run has sent so far, for an error's words: whether any request went out (the CLI's
 * `fetch` counts them), and the task it submitted, once the service named it.
 */
export interface SentSoFar {
  requests: boolean;
  taskId: string | undefined;
}

const NOTHING_SENT: SentSoFar = { requests: false, taskId: undefined };

/** The task an error concerns: its own `taskId`, else the one this run submitted. */
function taskOf(error: unknown, sent: SentSoFar): string | undefined {
  return (error instanceof OmniMediaError || error instanceof Interrupted ? error.taskId : undefined) ?? sent.taskId;
}

/** Turns an SDK field path (`images[1]`, `input_video`) into the flag the user typed. */
export type FlagNamer = (field: string) => string;

export const defaultFlagNamer: FlagNamer = (field) => {
  const head = field.split(/[.[]/)[0] ?? field;
  return head ? `--${head.replace(/_/g, '-')}` : '';
};

interface IssueJson {
  field: string;
  flag: string;
  message: string;
}

function issuesOf(error: ValidationError, flagFor: FlagNamer): IssueJson[] {
  return error.issues.map((issue) => ({ field: issue.path, flag: flagFor(issue.path), message: issue.message }));
}

/** `--image (image[1])`, or just `--size` when the flag and field agree. */
function issueLabel(issue: IssueJson): string {
  if (!issue.flag) return issue.field;
  const plain = issue.flag.replace(/^--/, '').replace(/-/g, '_');
  return plain === issue.field || !issue.field ? issue.flag : `${issue.flag} (${issue.field})`;
}

/** The error as one JSON object for `--json`: type, message, exit code and what scripts need. */
export function errorJson(error: unknown, flagFor: FlagNamer = defaultFlagNamer, sent: SentSoFar = NOTHING_SENT): Record<string, unknown> {
  const base: Record<string, unknown> = {
    type: error instanceof Error ? error.name : 'Error',
    message: error instanceof Error ? error.message : String(error),
    exit_code: exitCodeFor(error),
  };
  const taskId = taskOf(error, sent);
  if (taskId) base.task_id = taskId;
  if (error instanceof UsageError && error.flag) base.flag = error.flag;
  if (error instanceof ValidationError) base.issues = issuesOf(error, flagFor);
  if (error instanceof APIError) {
    if (error.status !== undefined) base.status = error.status;
    if (error.requestId) base.request_id = error.requestId;
    if (error.body !== undefined) base.body = error.body;
  }
  if (error instanceof TaskFailedError) {
    base.fail_reason = error.failReason ?? null;
    base.task = error.task;
  }
  if (error instanceof WaitTimeoutError && error.lastTask !== undefined) base.last_task = error.lastTask;
  return { error: base };
}

/**
 * The error for a person: what went wrong, each broken rule on its own line, and what to do
 * next. "nothing was sent" only when no request went out; after a submission, the task's id
 * (whatever threw), so that nobody submits and pays twice. Every line through the terminal-safe
 * printer: messages, bodies and ids carry the service's words.
 */
export function errorText(error: unknown, flagFor: FlagNamer = defaultFlagNamer, sent: SentSoFar = NOTHING_SENT, command = GLOBAL_COMMAND): string {
  const lines = errorLines(error, flagFor, sent, command);
  const taskId = taskOf(error, sent);
  // Unless a line already says how to reach the task (a message naming the id is not enough).
  if (taskId && !lines.some((line) => line.includes(`${command} tasks wait ${taskId}`)))
    lines.push(`  task ${taskId}${taskId === sent.taskId ? ' was submitted' : ''}; see it with: ${command} tasks get ${taskId}`);
  return lines.map(terminalText).join('\n');
}

function errorLines(error: unknown, flagFor: FlagNamer, sent: SentSoFar, command: string): string[] {
  if (error instanceof ValidationError) {
    const lines = issuesOf(error, flagFor).map((issue) => `  ${issueLabel(issue)}: ${issue.message}`);
    const head = !sent.requests ? 'invalid input, nothing was sent' : taskOf(error, sent) ? 'invalid input' : 'invalid input, no task was submitted';
    return [`error: ${head}`, ...lines];
  }
  if (error instanceof TaskFailedError) {
    return [`error: task ${error.task.task_id} ended with status "${error.task.status}"${error.failReason ? ` (${error.failReason})` : ''}`];
  }
  if (error instanceof WaitTimeoutError) {
    return [`error: task ${error.taskId} did not finish in time; it may still finish. Resume with: ${command} tasks wait ${error.taskId}`];
  }
  // The SDK's words name its constructor option; at the command line the key is a flag.
  const keyless = error instanceof AuthenticationError && error.status === undefined ? /^(.*) needs an API key/.exec(error.message)?.[1] : undefined;
  if (keyless) return [`error: ${keyless} needs an API key: pass --api-key KEY or set OMNIMEDIA_API_KEY (against ${command} mock, any key works). No request was sent.`];
  if (error instanceof APIError) {
    const details = [
      error.status !== undefined ? `status ${error.status}` : undefined,
      error.requestId ? `request id ${error.requestId}` : undefined,
      error.taskId ? `task ${error.taskId}` : undefined,
    ].filter(Boolean);
    const line = `error: ${error.message}${details.length ? ` (${details.join(', ')})` : ''}`;
    if (error.body === undefined || error.body === '') return [line];
    return [line, `  body: ${truncate(typeof error.body === 'string' ? error.body : JSON.stringify(error.body), 500)}`];
  }
  // Their words are the CLI's own, and name its commands as typed where it was installed.
  if (error instanceof Interrupted) return [withCommand(error.message, command)];
  if (error instanceof UsageError) return [`error: ${withCommand(error.message, command)}`];
  if (error instanceof OmniMediaError) return [`error: ${error.message}`];
  // A stack's own lines stay lines.
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return `internal error (please report it): ${stack}`.split('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

