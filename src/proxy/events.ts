/**
 * The task events route's answer: `text/event-stream` (Server-Sent Events, DESIGN 12). Each
 * stream follows the task's one watch (task-watch.ts) and writes what it hears, one event per
 * write: `event: task` with the task as the proxy's task read answers it and a growing `id`,
 * `event: error` with the proxy's error body, `: ping` every `heartbeatMs`; it ends after a
 * terminal task, an error, or `maxStreamMs`. Open streams are counted per identity and per
 * process; a stream whose page went away gives its place and its share of the watch up at once.
 */
import { isTerminalStatus } from '../waiting/status.ts';
import { ProxyRefusal } from './answers.ts';
import type { ProxyEventsOptions, ProxyIdentity } from './options.ts';
import type { TaskWatches, WatchListener } from './task-watch.ts';

/** Headers of a stream: never cached or transformed (a gzip proxy buffers), never buffered by nginx. */
export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
  vary: 'Origin',
};

/** Seconds a page is told to wait when every stream place is taken: places free as pages go. */
const FULL_RETRY_AFTER_S = 5;

const encoder = new TextEncoder();

/** An event's lines: `data:` once per line of the text (JSON the service pretty-printed stays whole). */
function frame(event: string, data: string, id?: number): Uint8Array {
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
  return encoder.encode(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}${lines.join('')}\n`);
}

/** The id a reconnecting page last saw (`Last-Event-ID`), when it is one of ours: the stream's ids go on from it. */
function lastEventId(value: string | null): number {
  return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : 0;
}

/** The streams one proxy holds open: counted per identity and in all. */
export class OpenStreams {
  readonly #limits: Required<ProxyEventsOptions>;
  readonly #byIdentity = new Map<string, number>();
  #open = 0;

  constructor(limits: Required<ProxyEventsOptions>) {
    this.#limits = limits;
  }

  /** Streams open now (for tests and leak checks). */
  get size(): number {
    return this.#open;
  }

  /** Take a place for `identity`, or refuse with 429; the function gives it back (once). */
  take(identity: ProxyIdentity): () => void {
    const who = String(identity.id);
    const mine = this.#byIdentity.get(who) ?? 0;
    const full = (message: string) =>
      new ProxyRefusal(429, 'too_many_streams', message, { headers: { 'retry-after': String(FULL_RETRY_AFTER_S) } });
    if (mine >= this.#limits.perIdentity) throw full(`at most ${this.#limits.perIdentity} task event streams open at once for this user`);
    if (this.#open >= this.#limits.perProcess) throw full(`at most ${this.#limits.perProcess} task event streams open at once on this server`);
    this.#byIdentity.set(who, mine + 1);
    this.#open++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#open--;
      const left = (this.#byIdentity.get(who) ?? 1) - 1;
      if (left > 0) this.#byIdentity.set(who, left);
      else this.#byIdentity.delete(who);
    };
  }
}

/**
 * Where one page's stream is in its life; `#move` is the one place that changes it.
 * - `opening`: made, not yet following its task's watch.
 * - `following`: following the watch (`unfollow` leaves it), its timers running.
 * - `closed`: the end: the watch left, the timers cleared, its place given back, the body closed.
 */
type StreamLife =
  | { phase: 'opening' }
  | { phase: 'following'; unfollow: () => void }
  | { phase: 'closed' };

/** One page's stream: what it writes, and its one way to the end (`close`). */
class PageStream {
  #life: StreamLife = { phase: 'opening' };
  #id: number;
  readonly #timers: ReturnType<typeof setTimeout>[] = [];
  readonly #controller: ReadableStreamDefaultController<Uint8Array>;
  readonly #request: { signal: AbortSignal };
  readonly #release: () => void;
  readonly #onAbort = (): void => this.close();

  constructor(controller: ReadableStreamDefaultController<Uint8Array>, request: { headers: Headers; signal: AbortSignal }, release: () => void) {
    this.#controller = controller;
    this.#request = request;
    this.#release = release;
    this.#id = lastEventId(request.headers.get('last-event-id'));
  }

  /** Follow `taskId`'s watch: a first line at once (the status and headers go out), pings, the time limit. */
  start(watches: TaskWatches, taskId: string, limits: Required<ProxyEventsOptions>): void {
    if (this.#request.signal.aborted) return this.close();
    this.#request.signal.addEventListener('abort', this.#onAbort, { once: true });
    this.#send(encoder.encode(': open\n\n'));
    this.#timers.push(setInterval(() => this.#send(encoder.encode(': ping\n\n')), limits.heartbeatMs), setTimeout(() => this.close(), limits.maxStreamMs));
    for (const timer of this.#timers) (timer as { unref?: () => void }).unref?.();
    const listener: WatchListener = {
      task: ({ task, text }) => {
        this.#send(frame('task', text, ++this.#id));
        if (isTerminalStatus(task.status)) this.close();
      },
      error: (status, text) => {
        this.#send(frame('error', withStatus(status, text)));
        this.close();
      },
      end: () => this.close(),
    };
    const unfollow = watches.follow(taskId, listener);
    // The watch may have ended the stream already (a task it knew had ended).
    if (this.#life.phase === 'closed') unfollow();
    else this.#move({ phase: 'following', unfollow });
  }

  /** The end, whatever brought it (the task's end, an error, the time limit, the page gone): once. */
  close(): void {
    this.#move({ phase: 'closed' });
  }

  #send(bytes: Uint8Array): void {
    if (this.#life.phase === 'closed') return;
    try {
      this.#controller.enqueue(bytes);
    } catch {
      this.close(); // The page cancelled the body.
    }
  }

  /** The one place the stream's life changes: `closed` lets go of everything the stream held. */
  #move(next: StreamLife): void {
    const left = this.#life;
    if (left.phase === 'closed') return;
    this.#life = next;
    if (next.phase !== 'closed') return;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#request.signal.removeEventListener('abort', this.#onAbort);
    if (left.phase === 'following') left.unfollow();
    this.#release();
    try {
      this.#controller.close();
    } catch {
      // Cancelled already.
    }
  }
}

/**
 * The stream of `taskId`'s events for one page: its body pulls nothing, each event is enqueued
 * (and so written) as it comes. `signal`: the page's request (it went away); `release`: its
 * place among the open streams.
 */
export function eventStream(
  watches: TaskWatches,
  taskId: string,
  limits: Required<ProxyEventsOptions>,
  request: { headers: Headers; signal: AbortSignal },
  release: () => void,
): ReadableStream<Uint8Array> {
  let stream: PageStream | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream = new PageStream(controller, request, release);
        stream.start(watches, taskId, limits);
      },
      cancel() {
        stream?.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The error body with the status the page maps it by: `{ "status": 404, "error": {...} }`. The
 * HTTP status is ours and goes last: a `status` field of the service's body (`"error"`, `403`
 * for a 404) never replaces it, and the page's wait ends with the error of the real status.
 */
function withStatus(status: number, text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return JSON.stringify(body && typeof body === 'object' && !Array.isArray(body) ? { ...body, status } : { status, error: { code: 'upstream_error', message: `the service answered ${status}` } });
}
