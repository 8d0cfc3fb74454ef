import { styleText } from 'node:util';
import { terminalText } from './terminal-text.ts';
import { SPINNER, fitToWidth, taskText, transferText, type TaskView } from './format.ts';

/** Where progress goes: stderr, so that stdout carries only results (and only JSON with --json). */
export interface TerminalStream {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
  /** A terminal's colour support, honouring NO_COLOR and FORCE_COLOR (Node's tty streams). */
  hasColors?: () => boolean;
}

/** How a permanent line reads: a colour on terminals that have them. */
export type Tone = 'plain' | 'ok' | 'error' | 'warn';
const TONE_COLOR = { ok: 'green', error: 'red', warn: 'yellow' } as const;

/** The part of a task the live line reads. */
export interface TaskSnapshot {
  task_id: string;
  status: string;
  attempt_count?: number | null | undefined;
  attempts?: readonly { status?: string | null | undefined; fail_reason?: string | null | undefined }[] | null | undefined;
}

export interface TaskProgress {
  /** The service answered the submission: show the id. */
  submitted(taskId: string, status: string): void;
  /** A task seen while polling. */
  update(task: TaskSnapshot, polls?: number): void;
  /** Stop showing it (the caller prints the outcome). */
  end(): void;
  readonly elapsedMs: number;
}

export interface TransferProgress {
  update(loaded: number, total?: number): void;
  end(): void;
  readonly elapsedMs: number;
}

export interface Progress {
  /** A permanent line (above the live lines on a terminal), through the terminal-safe printer: one line, controls shown escaped. */
  log(line: string, tone?: Tone): void;
  task(taskId?: string): TaskProgress;
  transfer(verb: string, label: string, total?: number): TransferProgress;
  /** A live line the caller renders (a batch's counts), redrawn on `update()`; nothing off a terminal. */
  line(render: () => string): { update(): void; end(): void };
  /** Clear the live lines and stop animating (before printing a result or exiting). */
  stop(): void;
}

export interface ProgressOptions {
  quiet?: boolean | undefined;
  /** ms clock; tests pass their own. */
  now?: () => number;
  /** Spinner frame period in ms; 0 disables the timer (tests render by hand). */
  tickMs?: number;
}

/** Progress for a stream: a redrawn live area on a terminal, one log line per change otherwise. */
export function createProgress(stream: TerminalStream, options: ProgressOptions = {}): Progress {
  if (options.quiet) return new LogProgress({ write: () => undefined }, options.now ?? Date.now);
  if (stream.isTTY) return new LiveProgress(stream, options.now ?? Date.now, options.tickMs ?? 80);
  return new LogProgress(stream, options.now ?? Date.now);
}

function taskView(taskId: string, status: string, elapsedMs: number, task?: TaskSnapshot, polls?: number): TaskView {
  const attempts = task?.attempts ?? [];
  const attempt = task?.attempt_count ?? (attempts.length || undefined);
  const failedAttempts = attempts.filter((a) => a.status === 'failed').map((a) => a.fail_reason ?? 'failed');
  return { taskId, status, elapsedMs, attempt: attempt || undefined, failedAttempts, polls };
}

/** One line per change, for logs and pipes: no escape codes, nothing redrawn. */
class LogProgress implements Progress {
  constructor(
    private readonly stream: TerminalStream,
    private readonly now: () => number,
  ) {}

  log(line: string): void {
    this.stream.write(`${terminalText(line)}\n`);
  }

  task(taskId = '(submitting)'): TaskProgress {
    const now = this.now;
    const started = now();
    let id = taskId;
    let last = '';
    const say = (view: TaskView) => {
      // Elapsed time changes every poll; only a new status or attempt is news.
      const key = taskText({ ...view, elapsedMs: 0 });
      if (key === last) return;
      last = key;
      this.log(taskText(view));
    };
    return {
      submitted: (taskIdNow, status) => {
        id = taskIdNow;
        say(taskView(id, status, this.now() - started));
      },
      update: (task, polls) => say(taskView(id, task.status, this.now() - started, task, polls)),
      end: () => undefined,
      get elapsedMs() {
        return now() - started;
      },
    };
  }

  transfer(_verb: string, _label: string): TransferProgress {
    const now = this.now;
    const started = now();
    return {
      update: () => undefined,
      end: () => undefined,
      get elapsedMs() {
        return now() - started;
      },
    };
  }

  line(): { update(): void; end(): void } {
    return { update: () => undefined, end: () => undefined };
  }

  stop(): void {}
}

type LiveItem = { render(frame: string): string };

/** A few lines at the bottom of the terminal, redrawn in place with a spinner. */
class LiveProgress implements Progress {
  readonly #items = new Set<LiveItem>();
  #drawnLines = 0;
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly stream: TerminalStream,
    private readonly now: () => number,
    private readonly tickMs: number,
  ) {}

  log(line: string, tone: Tone = 'plain'): void {
    this.#clear();
    const shown = terminalText(line);
    const colored =
      tone !== 'plain' && this.stream.hasColors?.() ? styleText(TONE_COLOR[tone], shown, { validateStream: false }) : shown;
    this.stream.write(`${colored}\n`);
    this.#draw();
  }

  task(taskId = '…'): TaskProgress {
    const now = this.now;
    const started = now();
    let id = taskId;
    let status = 'submitting';
    let snapshot: TaskSnapshot | undefined;
    let polls: number | undefined;
    const item: LiveItem = {
      render: (frame) => `${frame} ${taskText(taskView(id, status, now() - started, snapshot, polls))}`,
    };
    this.#add(item);
    return {
      submitted: (taskIdNow, statusNow) => {
        id = taskIdNow;
        status = statusNow;
        this.#redraw();
      },
      update: (task, pollCount) => {
        snapshot = task;
        polls = pollCount;
        status = task.status;
        this.#redraw();
      },
      end: () => this.#remove(item),
      get elapsedMs() {
        return now() - started;
      },
    };
  }

  transfer(verb: string, label: string, total?: number): TransferProgress {
    const now = this.now;
    const started = now();
    let loaded = 0;
    let size = total;
    const item: LiveItem = {
      render: (frame) => `${frame} ${transferText({ verb, label, loaded, total: size, elapsedMs: now() - started })}`,
    };
    this.#add(item);
    return {
      update: (bytes, totalBytes) => {
        loaded = bytes;
        if (totalBytes !== undefined) size = totalBytes;
        this.#redraw();
      },
      end: () => this.#remove(item),
      get elapsedMs() {
        return now() - started;
      },
    };
  }

  line(render: () => string): { update(): void; end(): void } {
    const item: LiveItem = { render: (frame) => `${frame} ${render()}` };
    this.#add(item);
    let drawn = 0;
    // A batch reports thousands of changes: the line is redrawn 10 times a second at most.
    const update = () => {
      if (this.now() - drawn < 100) return;
      drawn = this.now();
      this.#redraw();
    };
    return { update, end: () => this.#remove(item) };
  }

  stop(): void {
    this.#clear();
    this.#items.clear();
    this.#stopTimer();
  }

  #add(item: LiveItem): void {
    this.#items.add(item);
    if (this.tickMs > 0 && !this.#timer) {
      this.#timer = setInterval(() => {
        this.#frame = (this.#frame + 1) % SPINNER.length;
        this.#redraw();
      }, this.tickMs);
      // The spinner never keeps the process alive on its own.
      this.#timer.unref?.();
    }
    this.#redraw();
  }

  #remove(item: LiveItem): void {
    if (!this.#items.delete(item)) return;
    this.#redraw();
    if (this.#items.size === 0) this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #redraw(): void {
    this.#clear();
    this.#draw();
  }

  // Back to the first live line and erase to the end of the screen.
  #clear(): void {
    if (this.#drawnLines === 0) return;
    this.stream.write(`\r${this.#drawnLines > 1 ? `\x1b[${this.#drawnLines - 1}A` : ''}\x1b[J`);
    this.#drawnLines = 0;
  }

  // The cursor stays at the end of the last line, so the next clear knows where it is.
  #draw(): void {
    if (this.#items.size === 0) return;
    const frame = SPINNER[this.#frame] ?? '';
    const lines = [...this.#items].map((item) => fitToWidth(terminalText(item.render(frame)), this.stream.columns));
    this.stream.write(lines.join('\n'));
    this.#drawnLines = lines.length;
  }
}
