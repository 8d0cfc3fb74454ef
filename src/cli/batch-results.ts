// `DIR/results.jsonl` of `omnimedia batch`: one line per job id however often the batch was
// resumed, in completion order, derived from the journal. A line is on disk (every byte
// written, then fdatasync) before the batch is asked for the next one, which is when the
// journal marks it handed over (`delivered`); so a crash between the two hands it over again,
// and a line already here is not written twice. On opening, a line that is not a result (a
// foreign or torn one) costs only itself, and a job the journal says was delivered but has no
// line here (its line lost) gets its line back from the journal: the file is rewritten beside
// itself, then renamed over it. So is a job whose line was not its last word (unknown then
// resubmitted, a wait that gave up, a refusal) when its new line comes.
import { open, rename, type FileHandle } from 'node:fs/promises';
import type { BatchResult } from 'omnimedia/resources';
import { appendWhole, readJsonLines, repairTail } from '../internal/jsonl-file.ts';

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
  id: string;
  status: string;
  cost: number;
  text: string;
}

function storedLine(result: BatchResult): Stored {
  return { id: result.id, status: outcome(result.status, result.error), cost: result.total_cost ?? 0, text: JSON.stringify(resultRecord(result)) };
}

/** A line of the file as a result line (an id and a status), else nothing: a foreign line. */
function storedOf(value: unknown): Stored | undefined {
  const line = value as { id?: unknown; status?: unknown; total_cost?: unknown; error?: unknown } | undefined;
  if (typeof line?.id !== 'string' || typeof line.status !== 'string') return undefined;
  return { id: line.id, status: outcome(line.status, line.error), cost: typeof line.total_cost === 'number' ? line.total_cost : 0, text: JSON.stringify(value) };
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

  /**
   * Open (or create) the file, reading the lines of earlier runs, and give back the line of every
   * job `journal` (the batch's journal file) says was delivered and the file lacks.
   */
  static async open(path: string, journal: string): Promise<ResultsFile> {
    const byId = new Map<string, Stored>();
    let lines = 0;
    if ((await repairTail(path)) > 0)
      for await (const batch of readJsonLines(path))
        for (const { value } of batch) {
          lines++;
          const stored = storedOf(value);
          if (stored) {
            byId.delete(stored.id);
            byId.set(stored.id, stored);
          }
        }
    // What only the journal still knows: a delivered job whose line is gone.
    const delivered = new Map<string, BatchResult>();
    if ((await repairTail(journal)) > 0)
      for await (const batch of readJsonLines(journal))
        for (const { value } of batch) {
          const entry = value as { id?: unknown; state?: unknown; result?: BatchResult } | undefined;
          if (typeof entry?.id !== 'string') continue;
          if (entry.state === 'delivered' && entry.result?.id === entry.id) delivered.set(entry.id, entry.result);
          else delivered.delete(entry.id);
        }
    for (const [id, result] of delivered) if (!byId.has(id)) byId.set(id, storedLine(result));
    const file = new ResultsFile(path, await open(path, 'a'), byId);
    if (lines !== byId.size) await file.#rewrite();
    return file;
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
    const now = storedLine(result);
    this.#byId.delete(result.id);
    this.#byId.set(result.id, now);
    if (earlier) await this.#rewrite();
    else await appendWhole(this.#handle, `${text}\n`);
    return { earlier, now };
  }

  /** Every job's line, in the order they were recorded (a replaced job's at the end), beside the file then renamed over it. */
  async #rewrite(): Promise<void> {
    const next = `${this.#path}.${process.pid}.tmp`;
    const out = await open(next, 'w');
    try {
      await appendWhole(out, [...this.#byId.values()].map((stored) => `${stored.text}\n`).join(''));
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
