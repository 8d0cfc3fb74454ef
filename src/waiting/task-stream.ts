/**
 * A page's wait reads its task's events from the app's proxy (`GET <proxyURL>/v1/tasks/{id}/events`,
 * DESIGN 12) instead of polling: one request for the whole wait. A stream that breaks is reopened
 * with `Last-Event-ID` (after a backoff when it failed); after two failures in a row, or a 404
 * from a proxy without the route, the wait polls through the proxy as before (the poller does).
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

/** One wait's stream of its task: `next()` gives each task it sends. */
export class TaskEventStream {
  readonly #streams: TaskStreams;
  readonly #taskId: string;
  readonly #what: string;
  readonly #signal: AbortSignal;
  readonly #tasks: TaskResult[] = [];
  readonly #feed: (text: string) => void;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #decoder = new TextDecoder();
  #failures = 0;
  #lastId: string | undefined;
  /** The open stream sent a task: its end is a break to mend, not a failure. */
  #delivered = false;
  #error: APIError | undefined;
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
    this.#feed = sseParser(({ event, data, id }) => {
      if (event === 'error') this.#error = this.#errorOf(data);
      if (event !== 'task') return;
      let task: TaskResult;
      try {
        task = parseResponse<TaskResult>(TASK_ANSWER, JSON.parse(data), what, { taskId });
      } catch {
        return; // Not a task we can read: the next one, or the poll after two failures.
      }
      if (task.task_id !== taskId) return;
      this.#lastId = id;
      this.#delivered = true;
      this.#failures = 0;
      this.#ended = isTerminalStatus(task.status);
      this.#tasks.push(task);
    });
  }

  /**
   * The next task the proxy sends (an unknown task's `event: error` is its `APIError`, thrown);
   * `undefined` once the stream gave up: the wait polls instead.
   */
  async next(): Promise<TaskResult | undefined> {
    for (;;) {
      const task = this.#tasks.shift();
      if (task) return task;
      if (this.#error) throw this.#error;
      if (!this.#reader && !(await this.#open())) return undefined;
      let step: ReadableStreamReadResult<Uint8Array> | undefined;
      try {
        step = await (this.#reader as ReadableStreamDefaultReader<Uint8Array>).read();
      } catch (error) {
        if (this.#signal.aborted) throw error;
      }
      if (step && !step.done) {
        this.#feed(this.#decoder.decode(step.value, { stream: true }));
        continue;
      }
      // The stream ended or broke: reopened at once after it delivered, else after a backoff.
      this.#drop();
      if (!this.#delivered && !(await this.#failed(undefined))) return undefined;
    }
  }

  /** Open the stream; `false` when the wait should poll instead. */
  async #open(): Promise<boolean> {
    while (!this.#streams.unsupported) {
      try {
        const { response, body } = await this.#streams.open(this.#taskId, this.#lastId, this.#request.signal);
        if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
          void body.cancel().catch(() => {});
          throw new APIError(`${this.#what}: the proxy answered the events route with ${response.headers.get('content-type') ?? 'no content type'}`, { status: response.status, taskId: this.#taskId });
        }
        this.#reader = body.getReader();
        this.#decoder = new TextDecoder();
        this.#delivered = false;
        return true;
      } catch (error) {
        if (this.#signal.aborted) throw error;
        // A proxy without the route (older, or `events: false`): polled through, as before.
        if (error instanceof APIError && error.status === 404) this.#streams.unsupported = true;
        else if (!isTransientInWait(error)) throw error;
        else if (!(await this.#failed(error))) return false;
      }
    }
    return false;
  }

  /** One failure more: `false` at the second in a row, else after its backoff (`Retry-After` when given). */
  async #failed(error: unknown): Promise<boolean> {
    if (++this.#failures >= MAX_FAILURES) return false;
    await sleep(transientDelay(error, this.#failures), this.#signal);
    return true;
  }

  #drop(): void {
    void this.#reader?.cancel().catch(() => {});
    this.#reader = undefined;
  }

  /** The error of an `event: error`: its status and the proxy's error body, as the task read would have thrown it. */
  #errorOf(data: string): APIError {
    let status = 502;
    try {
      const body = JSON.parse(data) as { status?: unknown };
      if (typeof body.status === 'number' && body.status >= 400 && body.status < 600) status = body.status;
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
    const reader = this.#reader;
    this.#reader = undefined;
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
