/**
 * The studio's submissions: each POST of the page to a submission endpoint is journaled before
 * the proxy forwards it, and its answer (the task id) before the page gets it; the studio then
 * follows the task (the server's client, as `.wait()` does) and downloads its outputs into
 * `DIR/results/`, journaling the end. Who owns what:
 *
 * - the studio process owns `DIR` (the journal's lock) and every job in it; the page owns
 *   nothing (it may close at any time: the POST still runs to its answer, the task is still
 *   followed and downloaded);
 * - on disk before the POST: the `submitting` line (id, operation, the exact body);
 * - a stop (Ctrl-C, a crash) before that line is on disk: nothing was sent; after it and before
 *   the `answered` line: the job is `unknown` at the next start, never sent again (the service
 *   may have created a task that nobody follows; the gallery shows the job as unknown); after
 *   the `answered` line: the next start follows the task again and downloads its outputs; a
 *   stop during a download: downloaded again at the next start (the `finished` line comes last).
 */
import { basename, join } from 'node:path';
import { OmniMedia, TaskFailedError, type TaskResult } from 'omnimedia';
import type { NodeProxyRequest, NodeProxyResponse } from 'omnimedia/proxy';
import { StudioJournal, type StudioJob, type StudioOperation } from './journal.ts';

/** The submission endpoints below the proxy's base path, and their operation. */
export const SUBMISSIONS: Readonly<Record<string, StudioOperation>> = {
  'v1/images/generations': 'images.generate',
  'v1/images/edits': 'images.edit',
  'v1/video/generate': 'videos.generate',
  'v1/video/edits': 'videos.edit',
};

/** A JSON body larger than this is not read (the proxy's own cap, DESIGN 9). */
const MAX_JSON_BYTES = 1024 * 1024;
/** A follow that failed for another reason than the task's end is tried again after this, ms. */
const FOLLOW_RETRY_MS = 10_000;

/** The response the proxy writes a submission's answer into: held until the answer is journaled. */
class HeldResponse implements NodeProxyResponse {
  statusCode = 200;
  headersSent = false;
  writableFinished = false;
  readonly headers = new Map<string, string>();
  readonly #chunks: Uint8Array[] = [];
  readonly ended: Promise<void>;
  #end!: () => void;

  constructor() {
    this.ended = new Promise((resolve) => (this.#end = resolve));
  }
  setHeader(name: string, value: string): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  write(chunk: Uint8Array): boolean {
    this.#chunks.push(chunk);
    return true;
  }
  end(chunk?: Uint8Array): this {
    if (chunk) this.#chunks.push(chunk);
    this.writableFinished = true;
    this.#end();
    return this;
  }
  /** Never: a page that goes away does not abort a submission in flight (its answer is journaled). */
  once(): this {
    return this;
  }
  body(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}

/** The studio's jobs: submissions through the proxy, the tasks followed, the outputs downloaded. */
export class StudioJobs {
  readonly #journal: StudioJournal;
  readonly #client: OmniMedia;
  readonly #stop = new AbortController();
  readonly #follows = new Map<string, Promise<void>>();
  readonly #warn: (message: string) => void;

  constructor(journal: StudioJournal, client: OmniMedia, warn: (message: string) => void) {
    this.#journal = journal;
    this.#client = client;
    this.#warn = warn;
  }

  /** Follow again every task the journal has running (after a restart). */
  resume(): void {
    for (const job of this.#journal.jobs()) if (job.state === 'running' && job.task_id) this.#follow(job.id, job.task_id);
  }

  jobs(): StudioJob[] {
    return this.#journal.jobs();
  }

  /** The job whose task is `taskId`, once its outputs are downloaded (or it ended without). */
  async settled(taskId: string): Promise<StudioJob | undefined> {
    const job = this.jobs().find((candidate) => candidate.task_id === taskId);
    if (!job) return undefined;
    await this.#follows.get(job.id);
    return this.jobs().find((candidate) => candidate.id === job.id);
  }

  /**
   * A submission: read its JSON body (at most 1 MiB), journal it, hand it to the proxy, journal
   * the answer, then answer the page. A body that is not a JSON object goes to the proxy
   * unjournaled (it refuses it: nothing is sent).
   */
  async submit(op: StudioOperation, req: NodeProxyRequest, res: NodeProxyResponse, forward: (req: NodeProxyRequest, res: NodeProxyResponse) => void): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_JSON_BYTES) {
        res.statusCode = 413;
        res.setHeader('content-type', 'application/json');
        res.end(Buffer.from(JSON.stringify({ error: { message: 'Payload too large: a request body is at most 1 MiB', type: 'invalid_request_error' } })));
        return;
      }
      chunks.push(chunk);
    }
    const raw = Buffer.concat(chunks);
    let params: unknown;
    try {
      params = JSON.parse(raw.toString('utf8'));
    } catch {
      params = undefined;
    }
    const id = StudioJournal.newId();
    const journaled = typeof params === 'object' && params !== null && !Array.isArray(params);
    // On disk before the POST; a failed write sends nothing (the page gets the error).
    if (journaled) await this.#journal.write({ type: 'submitting', id, op, params: params as Record<string, unknown>, at: Date.now() });
    const held = new HeldResponse();
    forward(Object.assign(req, { body: new Uint8Array(raw) }), held);
    await held.ended;
    const body = held.body();
    if (journaled) {
      let taskId: string | undefined;
      try {
        const answer = JSON.parse(body.toString('utf8')) as { task_id?: unknown };
        if (held.statusCode < 300 && typeof answer.task_id === 'string') taskId = answer.task_id;
      } catch {
        // Not JSON: a refusal of the proxy or the service; no task.
      }
      await this.#journal.write({ type: 'answered', id, status: held.statusCode, ...(taskId ? { task_id: taskId } : {}), at: Date.now() });
      if (taskId) this.#follow(id, taskId);
    }
    res.statusCode = held.statusCode;
    for (const [name, value] of held.headers) res.setHeader(name, value);
    res.end(new Uint8Array(body));
  }

  /** Follow `taskId` to its end (the server's client, at `.wait()`'s cadence), then download its outputs. */
  #follow(id: string, taskId: string): void {
    if (this.#follows.has(id)) return;
    const signal = this.#stop.signal;
    const run = async () => {
      while (!signal.aborted) {
        let task: TaskResult;
        try {
          task = await this.#client.tasks.wait(taskId, { signal });
        } catch (error) {
          if (error instanceof TaskFailedError) task = error.task;
          else {
            if (signal.aborted) return;
            this.#warn(`omnimedia studio: following ${taskId}: ${(error as Error).message}; trying again in ${FOLLOW_RETRY_MS / 1000} s`);
            await new Promise((resolve) => setTimeout(resolve, FOLLOW_RETRY_MS).unref());
            continue;
          }
        }
        await this.#finish(id, task, signal);
        return;
      }
    };
    this.#follows.set(id, run().catch((error: unknown) => this.#warn(`omnimedia studio: ${taskId}: ${(error as Error).message}`)));
  }

  /** Download a finished task's outputs into `results/` and journal the end. */
  async #finish(id: string, task: TaskResult, signal: AbortSignal): Promise<void> {
    let files: string[] = [];
    let error: string | undefined;
    if ((task.data?.length ?? 0) > 0) {
      try {
        const paths = await this.#client.files.download(task as TaskResult & { data: { url: string }[] }, { to: join(this.#journal.dir, 'results'), signal });
        files = paths.map((path) => basename(path));
      } catch (caught) {
        if (signal.aborted) return;
        error = `the outputs could not be downloaded: ${(caught as Error).message}`;
      }
    }
    await this.#journal.write({ type: 'finished', id, task, files, ...(error ? { error } : {}), at: Date.now() });
  }

  /** Stop following (the journal keeps what is needed to follow again at the next start). */
  async close(): Promise<void> {
    this.#stop.abort(new Error('the studio stopped'));
    await Promise.allSettled(this.#follows.values());
  }
}
