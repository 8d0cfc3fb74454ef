import { MemoryDurationsStore } from '../coordination/memory.ts';
import { guardOf, PORT_TIMEOUT_MS, type PortGuard, type PortLog } from '../internal/port-call.ts';
import { isThenable } from '../internal/thenable.ts';
import type { DurationsStore } from '../coordination/ports.ts';
import type { TaskResult } from '../schemas/task.ts';

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
 * The range of the remembered durations, widened by a margin that shrinks as evidence grows
 * (20 % of the median for one sample, 3 % from seven on).
 */
function windowOf(samples: readonly number[] | undefined): ExpectedWindow | undefined {
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

/**
 * What a client has learned about how long tasks take, per kind, kept in a `DurationsStore`
 * (in memory, or shared by a fleet): the last `SAMPLES_PER_KIND` durations of each kind.
 */
export class TaskDurations {
  readonly #store: DurationsStore;
  readonly #guard: PortGuard;

  /** `log` hears when a shared store fails (the waits then plan without what it knows). */
  constructor(store: DurationsStore = new MemoryDurationsStore(), log?: PortLog) {
    this.#store = store;
    this.#guard = guardOf(store, 'the store of learned durations', log);
  }

  /** Remember how long a completed task took (nobody waits for it). */
  record(key: string | undefined, task: TaskResult): void {
    const seconds = secondsOf(task);
    if (key === undefined || seconds === undefined) return;
    this.#guard.fire(() => this.#store.add(key, seconds * 1000, SAMPLES_PER_KIND));
  }

  /** When a task of this kind should end, from what is remembered; `undefined` when the store cannot say by `signal`'s abort. */
  expected(key: string | undefined, signal?: AbortSignal): ExpectedWindow | undefined | Promise<ExpectedWindow | undefined> {
    if (key === undefined) return undefined;
    const samples = this.#guard.call(() => this.#store.get(key), { timeoutMs: PORT_TIMEOUT_MS, signal, abort: 'fallback', accept: isSamples, fallback: () => undefined });
    return isThenable(samples) ? samples.then(windowOf) : windowOf(samples);
  }
}

function isSamples(samples: unknown): boolean {
  return samples === undefined || (Array.isArray(samples) && samples.every((ms) => typeof ms === 'number' && Number.isFinite(ms)));
}
