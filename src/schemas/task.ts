/**
 * The types of what the service answers about tasks: closed interfaces, as openai-node's (a
 * misspelt field is a type error), every known field `field?: T` (a `null` on the wire reads
 * as absent, see task-schema.ts). Zod-free: the main entry's declarations show no zod type.
 */

/**
 * Task states. The spec shows `pending` and `completed`; `processing` and `failed` are the
 * obvious others. Any other string is accepted and treated as "still running", so a new
 * state on the service never breaks a wait.
 *
 * @example
 * ```ts
 * const task = await client.tasks.retrieve(id);
 * const status: TaskStatus = task.status;
 * if (isTerminalStatus(status)) console.log('done:', status);
 * ```
 */
export type TaskStatus = 'pending' | 'processing' | 'completed' | 'failed' | (string & {});

/**
 * One attempt of a task at a provider, as listed in `TaskResult.attempts`.
 *
 * @example
 * ```ts
 * const failed: TaskAttempt[] = (task.attempts ?? []).filter((a) => a.status === 'failed');
 * for (const a of failed) console.log(a.attempt_no, a.provider, a.fail_reason);
 * ```
 */
export interface TaskAttempt {
  /** Starts at 1. */
  attempt_no?: number;
  /** The provider this attempt ran at. */
  provider?: string;
  /** `completed` or `failed` in the spec; other strings are accepted. */
  status?: string;
  /** e.g. `provider_timeout`; the full list is not in the spec. */
  fail_reason?: string;
  /** Seconds this attempt took. */
  elapsed_s?: number;
}

/**
 * A produced file of a finished task: its `url`.
 *
 * @example
 * ```ts
 * const urls = (task.data ?? []).map((output: TaskOutput) => output.url);
 * ```
 */
export interface TaskOutput {
  /** Where the produced file is. */
  url: string;
}

/**
 * What an image submission returns: the `task_id` to wait on, and its first `status`.
 *
 * @example
 * ```ts
 * const submission: TaskSubmission = await client.images.generate({ model: 'omni-image', prompt: 'a cat' });
 * console.log(submission.task_id, submission.status);
 * ```
 */
export interface TaskSubmission {
  /** The task's id: wait on it, retrieve it, find it in a callback. */
  task_id: string;
  /** `pending` directly after submission. */
  status: TaskStatus;
  /** The model the task runs on, as the service names it. */
  model?: string;
  /** Unix seconds. */
  created_at?: number;
}

/**
 * What a video submission returns: the `task_id` and the billing specification it matched.
 *
 * @example
 * ```ts
 * const submission: VideoTaskSubmission = await client.videos.generate({ prompt: 'a fox', seconds: 8 });
 * console.log(submission.task_id, submission.normalized_model); // e.g. omni_flash_720p_8s
 * ```
 */
export interface VideoTaskSubmission extends TaskSubmission {
  /** The billing specification matched, e.g. `omni_flash_1080p_8s`. */
  normalized_model?: string;
  /** e.g. `video_generation`. */
  operation?: string;
  /** `video`. */
  media_type?: string;
}

/**
 * A task as the service reports it (and as callbacks deliver it): status, outputs, attempts, cost.
 *
 * @example
 * ```ts
 * const task: TaskResult = await client.tasks.retrieve('task_123');
 * if (task.status === 'completed') console.log(task.data?.[0]?.url, task.total_cost);
 * ```
 */
export interface TaskResult {
  /** The task's id. */
  task_id: string;
  /** `completed` on success; see `isSuccessStatus`, `isFailureStatus`. */
  status: TaskStatus;
  /** The model the task ran on. */
  model?: string;
  /** e.g. `image_generation`, `video_generation`. */
  operation?: string;
  /** `image` or `video`. */
  media_type?: string;
  /** Video tasks: the billing specification matched. */
  normalized_model?: string;
  /** The provider that finished the task. */
  provider?: string;
  /** Seconds taken by the final (successful) attempt. */
  elapsed_s?: number;
  /** Seconds across all attempts. */
  total_elapsed_s?: number;
  /** When it was submitted, Unix seconds. */
  created_at?: number;
  /** When it ended, Unix seconds. */
  completed_at?: number;
  /** The produced files. */
  data?: TaskOutput[];
  /** The task's cost (its unit is not in the spec). */
  total_cost?: number;
  /** How many providers were tried (1 when the first succeeded). */
  attempt_count?: number;
  /** One entry per attempt, the failed ones with their `fail_reason`. */
  attempts?: TaskAttempt[];
  /** Why a failed task failed, when the service says. */
  fail_reason?: string;
}
