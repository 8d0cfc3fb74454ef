/**
 * A page's wait reads its task's events from the app's proxy (`GET <proxyURL>/v1/tasks/{id}/events`,
 * DESIGN 12) instead of polling: one request for the whole wait. A stream that breaks is reopened
 * with `Last-Event-ID` after a backoff (1 s, doubling at each failure); a reopen that brings no
 * new status is a failure (the proxy resends the current task on every reopen); after two
 * failures in a row, or a 404 from a proxy without the route, the wait polls through the proxy
 * as before (the poller does).
 */
import { APIError } from '../errors.ts';
import type { Redactor } from '../internal/redact.ts';
import { sleep } from '../internal/sleep.ts';
import { TASK_ANSWER } from '../schemas/answers.ts';
import type { TaskResult } from '../schemas/task.ts';
import { apiErrorFromResponse } from '../transport/error-mapping.ts';
import type { HttpClient } from '../transport/http-client.ts';
import { isTransientInWait, transientDelay } from '../transport/retry-policy.ts';
import { sseParser } from '../transport/sse.ts';
import { parseResponse } from '../validation/answers.ts';
import { isTerminalStatus } from './status.ts';

/** Where a page's waits open their streams: the proxy, through the client's HTTP layer. */
export interface TaskStreams {
  /** Open `taskId`'s events (`lastEventId`: the last event's id, on a reconnect). */
  open(taskId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<{ response: Response; body: ReadableStream<Uint8Array> }>;
  /** The proxy answered the route with 404 (it has none): this client's waits poll from now on. */
  unsupported?: boolean;
  /** The client's redactor, for the errors a stream sends. */
  redactor: Redactor;
}

/** Failures in a row after which a wait polls instead. */
const MAX_FAILURES = 2;
/** A stream silent this long is taken for dead and reopened, ms: the proxy pings every 15 s (30 s at most). */
export const STREAM_IDLE_MS = 45_000;
/**
 * The first reopen's delay, ms, doubled at each failure in a row (DESIGN 12): a stream cut after
 * every event costs at most one request a second, then two failures and the wait polls.
 */
const REOPEN_MS = 1_000;

/**
 * Where one wait's stream is in its life; `#move` is the one place that changes it.
 * - `shut`: no request open; the next read opens one, after `delayMs`.
 * - `open`: a request being read, with its own parser (a reopen starts a fresh one); `news`: it
 *   brought a status not seen before; `failed`: it sent a transient `event: error`.
 * - `polling`: two failures in a row (the first poll after `delayMs`), or a proxy without the
 *   route (at once): the wait polls instead.
 * - `closed`: the wait is over.
 */
type StreamLife =
  | { phase: 'shut'; delayMs: number }
  | { phase: 'open'; reader: ReadableStreamDefaultReader<Uint8Array>; decoder: TextDecoder; feed: (text: string) => void; news: boolean; failed: APIError | undefined }
  | { phase: 'polling'; delayMs: number }
  | { phase: 'closed' };

/** One wait's stream of its task: `next()` gives each task it sends. */
export class TaskEventStream {
  readonly #streams: TaskStreams;
  readonly #taskId: string;
  readonly #what: string;
  readonly #signal: AbortSignal;
  readonly #tasks: TaskResult[] = [];
  #life: StreamLife = { phase: 'shut', delayMs: 0 };
  /** Reopens in a row that brought nothing new (or failed to open). */
  #failures = 0;
  #lastId: string | undefined;
  /** The last status sent: a stream that resends it brings no news. */
  #lastStatus: string | undefined;
  /** An `event: error` the wait ends with (not a transient one). */
  #fatal: APIError | undefined;
  /** The last task sent was the end: the proxy closes the stream next. */
  #ended = false;
  /** The stream's request: ended with the wait's signal, except after the end (see `close`). */
  readonly #request = new AbortController();

  constructor(streams: TaskStreams, taskId: string, what: string, signal: AbortSignal) {
    this.#streams = streams;
    this.#taskId = taskId;
    this.#what = what;
    this.#signal = signal;
    const onAbort = (): void => {
      if (!this.#ended) this.#request.abort(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }

  /** Where the stream is (for tests). */
  get phase(): StreamLife['phase'] {
    return this.#life.phase;
  }

  /** Once `next()` gave `undefined`: how long the wait waits before its first poll, ms (the backoff a reopen would have had). */
  get pollDelayMs(): number {
    return this.#life.phase === 'polling' ? this.#life.delayMs : 0;
  }

  /**
   * The next task the proxy sends (an unknown task's `event: error` is its `APIError`, thrown);
   * `undefined` once the stream gave up: the wait polls instead.
   */
  async next(): Promise<TaskResult | undefined> {
    for (;;) {
      const task = this.#tasks.shift();
      if (task) return task;
      if (this.#fatal) throw this.#fatal;
      const life = this.#life;
      if (life.phase === 'polling' || life.phase === 'closed') return undefined;
      if (life.phase === 'shut') {
        await this.#open(life.delayMs);
        continue;
      }
      let step: ReadableStreamReadResult<Uint8Array> | undefined;
      try {
        step = await life.reader.read();
      } catch (error) {
        if (this.#signal.aborted) throw error;
      }
      if (this.#life !== life) continue;
      if (step && !step.done) {
        life.feed(life.decoder.decode(step.value, { stream: true }));
        continue;
      }
      // The stream ended or broke: one that brought news is reopened after REOPEN_MS; one that
      // brought nothing new (the proxy's resend of the current task is not news) is a failure.
      if (life.news && !life.failed) {
        this.#failures = 0;
        this.#move({ phase: 'shut', delayMs: this.#reopenDelay(undefined) });
      } else this.#failed(life.failed);
    }
  }

  /** Open the stream after `delayMs`: `open` on success, else one failure more (or the wait's error, thrown). */
  async #open(delayMs: number): Promise<void> {
    if (delayMs > 0) await sleep(delayMs, this.#signal);
    try {
      const { response, body } = await this.#streams.open(this.#taskId, this.#lastId, this.#request.signal);
      if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
        void body.cancel().catch(() => {});
        throw new APIError(`${this.#what}: the proxy answered the events route with ${response.headers.get('content-type') ?? 'no content type'}`, { status: response.status, taskId: this.#taskId });
      }
      const opened: StreamLife = { phase: 'open', reader: body.getReader(), decoder: new TextDecoder(), feed: () => {}, news: false, failed: undefined };
      opened.feed = sseParser(({ event, data, id }) => this.#heard(opened, event, data, id));
      this.#move(opened);
    } catch (error) {
      if (this.#signal.aborted) throw error;
      // A proxy without the route (older, or `events: false`): polled through, as before.
      if (error instanceof APIError && error.status === 404) {
        this.#streams.unsupported = true;
        this.#move({ phase: 'polling', delayMs: 0 });
      } else if (!isTransientInWait(error)) throw error;
      else this.#failed(error);
    }
  }

  /** One event of the open stream `life`. */
  #heard(life: Extract<StreamLife, { phase: 'open' }>, event: string, data: string, id: string | undefined): void {
    if (event === 'error') {
      const error = this.#errorOf(data);
      // A passing failure upstream is the stream's failure (reopened, then polled); else the wait's.
      if (isTransientInWait(error)) life.failed = error;
      else this.#fatal = error;
      return;
    }
    if (event !== 'task') return;
    let task: TaskResult;
    try {
      task = parseResponse<TaskResult>(TASK_ANSWER, JSON.parse(data), this.#what, { taskId: this.#taskId });
    } catch {
      return; // Not a task we can read: the next one, or the poll after two failures.
    }
    if (task.task_id !== this.#taskId) return;
    this.#lastId = id;
    if (task.status !== this.#lastStatus) life.news = true;
    this.#lastStatus = task.status;
    this.#ended = isTerminalStatus(task.status);
    this.#tasks.push(task);
  }

  /** One failure more: the wait polls at the second in a row, else the stream is reopened after its backoff. */
  #failed(error: unknown): void {
    this.#failures++;
    const delayMs = this.#reopenDelay(error);
    this.#move(this.#failures >= MAX_FAILURES ? { phase: 'polling', delayMs } : { phase: 'shut', delayMs });
  }

  /** REOPEN_MS, doubled per failure in a row after the first (the proxy's `Retry-After` when it gave a longer one), with jitter. */
  #reopenDelay(error: unknown): number {
    const backoff = REOPEN_MS * 2 ** Math.max(0, this.#failures - 1) * (0.75 + 0.25 * Math.random());
    return error === undefined ? backoff : Math.max(backoff, transientDelay(error, this.#failures));
  }

  /** The one place the stream's life changes: leaving `open` lets go of its request's body. */
  #move(next: StreamLife): void {
    const left = this.#life;
    this.#life = next;
    if (left.phase === 'open' && next.phase !== 'closed') void left.reader.cancel().catch(() => {});
  }

  /** The error of an `event: error`: the status the proxy gives it (ours, never the service's field) and the proxy's error body. */
  #errorOf(data: string): APIError {
    let status = 502;
    try {
      const body = JSON.parse(data) as { status?: unknown };
      if (typeof body.status === 'number' && Number.isInteger(body.status) && body.status >= 400 && body.status < 600) status = body.status;
    } catch {
      // Kept as text below.
    }
    return apiErrorFromResponse(status, '', new Headers(), data, { redactor: this.#streams.redactor, what: this.#what, taskId: this.#taskId });
  }

  /**
   * Stop reading: the wait is over. After the task's end the proxy ends the stream itself: it is
   * read to that end (a second at most) rather than cut, since a browser reports a cut request
   * as failed (net::ERR_ABORTED), and the wait's own end must not abort it either.
   */
  close(): void {
    const life = this.#life;
    this.#move({ phase: 'closed' });
    const reader = life.phase === 'open' ? life.reader : undefined;
    const cut = (): void => {
      this.#request.abort();
      void reader?.cancel().catch(() => {});
    };
    if (!reader || !this.#ended) return cut();
    const timer = setTimeout(cut, 1_000);
    const drain = (): void =>
      void reader.read().then(
        ({ done }) => (done ? clearTimeout(timer) : drain()),
        () => clearTimeout(timer),
      );
    drain();
  }
}

/** The streams of a client whose base URL is the app's proxy: one attempt each (the wait reopens). */
export function proxyStreams(http: Pick<HttpClient, 'open' | 'redactor'>): TaskStreams {
  return {
    redactor: http.redactor,
    open: (taskId, lastEventId, signal) =>
      http.open(`v1/tasks/${encodeURIComponent(taskId)}/events`, {
        what: `task events(${taskId})`,
        taskId,
        signal,
        api: { headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } },
        idleTimeout: STREAM_IDLE_MS,
        maxRetries: 0,
      }),
  };
}
