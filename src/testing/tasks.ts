// Tasks of the mock and how they move: `pending` on submission, `processing` while an attempt
// runs, then `completed` (or `failed`). The state is computed from the clock at each read, so
// a test that advances fake time sees the task move without any timer firing.
import { now } from './clock.ts';
import { serviceTime } from '../schemas/time.ts';

export type TaskKind = 'image_generation' | 'image_edit' | 'video_generation' | 'video_edit';

/** One attempt as planned at submission (or re-planned by a scenario). */
export interface PlannedAttempt {
  provider: string;
  durationMs: number;
  outcome: 'completed' | 'failed';
  failReason?: string | undefined;
}

export interface TaskInit {
  id: string;
  kind: TaskKind;
  model: string;
  normalizedModel: string | undefined;
  /** The address files are served from (`{origin}{basePath}`). */
  root: string;
  createdAtMs: number;
  pendingMs: number;
  attempts: PlannedAttempt[];
  /** Files the task produces: PNGs of `size`, or one MP4. */
  outputs: number;
  size: { width: number; height: number } | undefined;
  cost: number;
  callbackUrl: string | undefined;
}

const OPERATION: Record<TaskKind, string> = {
  image_generation: 'image_generation',
  image_edit: 'image_editing',
  video_generation: 'video_generation',
  video_edit: 'video_editing',
};

/** Whole seconds an attempt took; at least 1, as a real attempt never takes none. */
const attemptSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class MockTask {
  readonly init: TaskInit;

  constructor(init: TaskInit) {
    this.init = init;
  }

  get id(): string {
    return this.init.id;
  }

  get isVideo(): boolean {
    return this.init.kind.startsWith('video');
  }

  /** ms since the epoch when the task ends (its last attempt finishes). */
  get endsAt(): number {
    return this.init.createdAtMs + this.init.pendingMs + this.init.attempts.reduce((sum, a) => sum + a.durationMs, 0);
  }

  /** The attempts finished by `at`, and whether one is running. */
  #progress(at: number): { finished: { attempt: PlannedAttempt; endsAt: number }[]; running: boolean } {
    let clock = this.init.createdAtMs + this.init.pendingMs;
    const finished: { attempt: PlannedAttempt; endsAt: number }[] = [];
    if (at < clock) return { finished, running: false };
    for (const attempt of this.init.attempts) {
      clock += attempt.durationMs;
      if (at < clock) return { finished, running: true };
      finished.push({ attempt, endsAt: clock });
    }
    return { finished, running: false };
  }

  status(at = now()): 'pending' | 'processing' | 'completed' | 'failed' {
    const { finished, running } = this.#progress(at);
    if (!running && finished.length === 0) return 'pending';
    if (running) return 'processing';
    return finished.at(-1)?.attempt.outcome === 'completed' ? 'completed' : 'failed';
  }

  isTerminal(at = now()): boolean {
    const status = this.status(at);
    return status === 'completed' || status === 'failed';
  }

  /** The file names of the results, e.g. `0.png`, `1.png` or `0.mp4`. */
  get outputFiles(): string[] {
    return Array.from({ length: this.init.outputs }, (_, i) => `${i}.${this.isVideo ? 'mp4' : 'png'}`);
  }

  /** The submission response (spec 2.1): video submissions carry three more fields. */
  submission(): Record<string, unknown> {
    const { id, model, normalizedModel, createdAtMs } = this.init;
    const base = { task_id: id, status: 'pending', model, created_at: serviceTime(createdAtMs) };
    if (!this.isVideo) return base;
    return { ...base, normalized_model: normalizedModel, operation: OPERATION[this.init.kind], media_type: 'video' };
  }

  /** The task as `GET /v1/tasks/{id}` returns it and callbacks carry it (spec 2.1). */
  result(at = now()): Record<string, unknown> {
    const { id, kind, model, normalizedModel, createdAtMs, root, cost } = this.init;
    const status = this.status(at);
    const { finished } = this.#progress(at);
    const attempts = finished.map(({ attempt }, i) => ({
      attempt_no: i + 1,
      provider: attempt.provider,
      status: attempt.outcome,
      ...(attempt.outcome === 'failed' ? { fail_reason: attempt.failReason ?? 'provider_error' } : {}),
      elapsed_s: attemptSeconds(attempt.durationMs),
    }));
    const result: Record<string, unknown> = {
      task_id: id,
      status,
      model,
      operation: OPERATION[kind],
      media_type: this.isVideo ? 'video' : 'image',
      ...(normalizedModel !== undefined ? { normalized_model: normalizedModel } : {}),
      created_at: serviceTime(createdAtMs),
      attempt_count: attempts.length,
      attempts,
    };
    if (status === 'completed' || status === 'failed') {
      const last = finished.at(-1);
      const lastAttempt = attempts.at(-1);
      Object.assign(result, {
        provider: last?.attempt.provider,
        elapsed_s: lastAttempt?.elapsed_s ?? 0,
        total_elapsed_s: attempts.reduce((sum, a) => sum + a.elapsed_s, 0),
        completed_at: serviceTime(last?.endsAt ?? at),
        total_cost: status === 'completed' ? cost : 0,
      });
      if (status === 'completed') result.data = this.outputFiles.map((file) => ({ url: `${root}/files/results/${id}/${file}` }));
    }
    return result;
  }

  /**
   * End the task now (a scenario control): the running attempt, or a first one if the task is
   * still pending, ends `completed` or `failed` with `reason`. Later attempts are dropped.
   */
  endNow(outcome: 'completed' | 'failed', reason?: string, at = now()): void {
    if (this.isTerminal(at)) throw new Error(`mock: task ${this.id} already ended (${this.status(at)})`);
    const finished = this.#progress(at).finished.map((f) => f.attempt);
    // Still pending: the first attempt starts now (and ends at once).
    this.init.pendingMs = Math.min(this.init.pendingMs, at - this.init.createdAtMs);
    const startedAt = this.init.createdAtMs + this.init.pendingMs + finished.reduce((sum, a) => sum + a.durationMs, 0);
    const provider = this.init.attempts[finished.length]?.provider ?? 'omni-mock-1';
    this.init.attempts = [...finished, { provider, durationMs: at - startedAt, outcome, ...(outcome === 'failed' ? { failReason: reason } : {}) }];
  }
}
