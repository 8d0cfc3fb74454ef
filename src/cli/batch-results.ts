// `DIR/results.jsonl` of `omnimedia batch`: one line per job id however often the batch was
// resumed, in completion order. A line is on disk (written, then fdatasync) before the batch is
// asked for the next one, which is when the journal marks it handed over; so a crash between
// the two hands it over again, and a line already here is not written twice. A job whose line
// was not its last word (unknown then resubmitted, a wait that gave up, a refusal) gets its
// line replaced (the file rewritten beside itself, then renamed over it).
import { open, rename, stat, truncate, type FileHandle } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { BatchResult } from 'omnimedia/resources';

/** A result line as the file holds it: every field, `null` when absent (uniform for jq and CSV tools). */
export function resultRecord(result: BatchResult): Record<string, unknown> {
  return {
    id: result.id,
    task_id: result.task_id ?? null,
    status: result.status,
    urls: result.urls,
    files: result.files,
    total_cost: result.total_cost ?? null,
    attempt_count: result.attempt_count ?? null,
    error: result.error ?? null,
  };
}

/** A line's outcome: its status, but `incomplete` for a completed task whose files were not saved. */
function outcome(status: string, error: unknown): string {
  return status === 'completed' && error ? 'incomplete' : status;
}

/** What the file says of a job: its outcome, its cost, and the line itself. */
export interface Stored {
  status: string;
  cost: number;
  text: string;
}

export class ResultsFile {
  readonly #path: string;
  readonly #byId: Map<string, Stored>;
  #handle: FileHandle;

  private constructor(path: string, handle: FileHandle, byId: Map<string, Stored>) {
    this.#path = path;
    this.#handle = handle;
    this.#byId = byId;
  }

  /** Open (or create) the file, reading the lines of earlier runs; a line a crash cut short is dropped. */
  static async open(path: string): Promise<ResultsFile> {
    const byId = new Map<string, Stored>();
    const found = await stat(path).catch(() => undefined);
    if (found) {
      let whole = 0;
      const input = createReadStream(path, { encoding: 'utf8' });
      for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
        try {
          const line = JSON.parse(text) as { id?: unknown; status?: unknown; total_cost?: unknown; error?: unknown };
          if (typeof line.id === 'string' && typeof line.status === 'string') {
            byId.set(line.id, { status: outcome(line.status, line.error), cost: typeof line.total_cost === 'number' ? line.total_cost : 0, text });
            whole += Buffer.byteLength(text) + 1;
          }
        } catch {
          break; // the torn last line
        }
      }
      if (whole < found.size) await truncate(path, whole);
    }
    return new ResultsFile(path, await open(path, 'a'), byId);
  }

  /** The statuses of every job in the file (this run's and the earlier runs'). */
  statuses(): IterableIterator<Stored> {
    return this.#byId.values();
  }

  get size(): number {
    return this.#byId.size;
  }

  /**
   * Record a job's line: appended, or replacing the job's earlier one (returned, to count it out);
   * `false` when the very line was there already.
   */
  async write(result: BatchResult): Promise<false | { earlier: Stored | undefined; now: Stored }> {
    const text = JSON.stringify(resultRecord(result));
    const earlier = this.#byId.get(result.id);
    if (earlier?.text === text) return false;
    const now = { status: outcome(result.status, result.error), cost: result.total_cost ?? 0, text };
    this.#byId.delete(result.id);
    this.#byId.set(result.id, now);
    if (earlier) await this.#rewrite();
    else {
      await this.#handle.write(`${text}\n`);
      await this.#handle.datasync();
    }
    return { earlier, now };
  }

  /** Every job's line, in the order they were recorded (a replaced job's at the end), beside the file then renamed over it. */
  async #rewrite(): Promise<void> {
    const next = `${this.#path}.${process.pid}.tmp`;
    const out = await open(next, 'w');
    try {
      await out.write([...this.#byId.values()].map((stored) => `${stored.text}\n`).join(''));
      await out.datasync();
    } finally {
      await out.close();
    }
    await this.#handle.close();
    await rename(next, this.#path);
    this.#handle = await open(this.#path, 'a');
  }

  async close(): Promise<void> {
    await this.#handle.close();
  }
}
