import { BoundedMap } from '../internal/bounded-map.ts';
import type { TaskResult } from '../schemas/task.ts';

/** Kinds of task remembered at most; the least recently used is forgotten first. */
export const MAX_REMEMBERED_KINDS = 256;
/** Durations remembered per kind: the most recent ones. */
export const SAMPLES_PER_KIND = 8;

/** When a task of a known kind is expected to end, in ms after its submission. */
export interface ExpectedWindow {
  /** Earliest expected end. */
  from: number;
  /** Latest expected end. */
  to: number;
  /** How many finished tasks this comes from. */
  samples: number;
}

/** The seconds a finished task's final attempt took (`elapsed_s`), else its total. */
function secondsOf(task: TaskResult): number | undefined {
  const seconds = task.elapsed_s ?? task.total_elapsed_s;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/**
 * What one client has learned about how long tasks take, per kind. Memory is bounded:
 * `MAX_REMEMBERED_KINDS` kinds (least recently used forgotten first) of `SAMPLES_PER_KIND`
 * durations each.
 */
export class TaskDurations {
  readonly #byKind = new BoundedMap<string, number[]>(MAX_REMEMBERED_KINDS);

  /** Remember how long a completed task took. */
  record(key: string | undefined, task: TaskResult): void {
    const seconds = secondsOf(task);
    if (key === undefined || seconds === undefined) return;
    const samples = this.#byKind.get(key) ?? [];
    samples.push(seconds * 1000);
    if (samples.length > SAMPLES_PER_KIND) samples.shift();
    this.#byKind.set(key, samples);
  }

  /**
   * When a task of this kind should end: the range of the remembered durations, widened by a
   * margin that shrinks as evidence grows (20 % of the median for one sample, 3 % from seven on).
   */
  expected(key: string | undefined): ExpectedWindow | undefined {
    const samples = key === undefined ? undefined : this.#byKind.get(key);
    if (!samples || samples.length === 0) return undefined;
    const sorted = [...samples].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    const margin = median * Math.max(0.03, 0.2 / sorted.length);
    return {
      from: Math.max(0, (sorted[0] as number) - margin),
      to: (sorted.at(-1) as number) + margin,
      samples: sorted.length,
    };
  }

  /** Kinds remembered (for tests and leak checks). */
  get size(): number {
    return this.#byKind.size;
  }
}
