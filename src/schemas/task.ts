import * as z from 'zod/mini';
import { nullish } from './lenient.ts';
import { taskIdProblem } from './task-id.ts';

// Responses are parsed leniently: unknown fields are kept (looseObject), unknown status and
// fail_reason strings pass, and known fields may be null. Only what a caller cannot do
// without (the task id, the status) is required.

/**
 * One attempt of a task at a provider. A failed attempt carries its `fail_reason`.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { TaskAttemptSchema } from 'omnimedia/schemas';
 * const attempt = z.parse(TaskAttemptSchema, { attempt_no: 1, status: 'failed', fail_reason: 'provider_timeout' });
 * ```
 */
export const TaskAttemptSchema = z.looseObject({
  attempt_no: nullish(z.number()),
  provider: nullish(z.string()),
  /** `completed` or `failed` in the spec; other strings are accepted. */
  status: nullish(z.string()),
  /** e.g. `provider_timeout`; the full list is not in the spec. */
  fail_reason: nullish(z.string()),
  elapsed_s: nullish(z.number()),
});
/**
 * One attempt of a task at a provider, as listed in `TaskResult.attempts`.
 *
 * @example
 * ```ts
 * const failed: TaskAttempt[] = (task.attempts ?? []).filter((a) => a.status === 'failed');
 * for (const a of failed) console.log(a.attempt_no, a.provider, a.fail_reason);
 * ```
 */
export type TaskAttempt = z.infer<typeof TaskAttemptSchema>;

/**
 * A produced file.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { TaskOutputSchema } from 'omnimedia/schemas';
 * const output = z.parse(TaskOutputSchema, { url: 'https://files.example.com/r/1.png' });
 * ```
 */
export const TaskOutputSchema = z.looseObject({ url: z.string() });
/**
 * A produced file of a finished task: its `url`.
 *
 * @example
 * ```ts
 * const urls = (task.data ?? []).map((output: TaskOutput) => output.url);
 * ```
 */
export type TaskOutput = z.infer<typeof TaskOutputSchema>;

const taskId = z.string().check(
  z.check((ctx) => {
    const problem = taskIdProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: `task_id ${problem}`, input: ctx.value });
  }),
);
const status = z.string({ error: 'status must be a string' });

/**
 * The answer to an image submission (`POST /v1/images/generations`, `/v1/images/edits`).
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { TaskSubmissionSchema } from 'omnimedia/schemas';
 * const submission = z.parse(TaskSubmissionSchema, { task_id: 'task_123', status: 'pending' });
 * ```
 */
export const TaskSubmissionSchema = z.looseObject({
  task_id: taskId,
  // A submission is `pending` by definition (spec 2.1), so an absent or null status reads so.
  status: z.pipe(nullish(status), z.transform((value) => value ?? 'pending')),
  model: nullish(z.string()),
  created_at: nullish(z.number()),
});
/**
 * What an image submission returns: the `task_id` to wait on, and its first `status`.
 *
 * @example
 * ```ts
 * const submission: TaskSubmission = await client.images.generate({ model: 'omni-image', prompt: 'a cat' });
 * console.log(submission.task_id, submission.status);
 * ```
 */
export type TaskSubmission = z.infer<typeof TaskSubmissionSchema>;

/**
 * The answer to a video submission (`POST /v1/video/generate`, `/v1/video/edits`, status 202).
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { VideoTaskSubmissionSchema } from 'omnimedia/schemas';
 * const submission = z.parse(VideoTaskSubmissionSchema, { task_id: 'task_9', normalized_model: 'omni_flash_1080p_8s' });
 * ```
 */
export const VideoTaskSubmissionSchema = z.looseObject({
  ...TaskSubmissionSchema.shape,
  /** The billing specification matched, e.g. `omni_flash_1080p_8s`. */
  normalized_model: nullish(z.string()),
  operation: nullish(z.string()),
  media_type: nullish(z.string()),
});
/**
 * What a video submission returns: the `task_id` and the billing specification it matched.
 *
 * @example
 * ```ts
 * const submission: VideoTaskSubmission = await client.videos.generate({ prompt: 'a fox', seconds: 8 });
 * console.log(submission.task_id, submission.normalized_model); // e.g. omni_flash_720p_8s
 * ```
 */
export type VideoTaskSubmission = z.infer<typeof VideoTaskSubmissionSchema>;

/**
 * A task as `GET /v1/tasks/{id}` returns it; callback bodies are identical.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { TaskResultSchema } from 'omnimedia/schemas';
 * const task = z.parse(TaskResultSchema, JSON.parse(text));
 * ```
 */
export const TaskResultSchema = z.looseObject({
  task_id: taskId,
  status,
  model: nullish(z.string()),
  operation: nullish(z.string()),
  media_type: nullish(z.string()),
  normalized_model: nullish(z.string()),
  provider: nullish(z.string()),
  elapsed_s: nullish(z.number()),
  total_elapsed_s: nullish(z.number()),
  created_at: nullish(z.number()),
  completed_at: nullish(z.number()),
  data: nullish(z.array(TaskOutputSchema)),
  total_cost: nullish(z.number()),
  attempt_count: nullish(z.number()),
  attempts: nullish(z.array(TaskAttemptSchema)),
  fail_reason: nullish(z.string()),
});
/**
 * A task as the service reports it (and as callbacks deliver it): status, outputs, attempts, cost.
 *
 * @example
 * ```ts
 * const task: TaskResult = await client.tasks.retrieve('task_123');
 * if (task.status === 'completed') console.log(task.data?.[0]?.url, task.total_cost);
 * ```
 */
export type TaskResult = z.infer<typeof TaskResultSchema>;
