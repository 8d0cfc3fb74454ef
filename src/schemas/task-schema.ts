import * as z from 'zod/mini';
import { answerObject } from './lenient.ts';
import type { TaskAttempt, TaskOutput, TaskResult, TaskSubmission, VideoTaskSubmission } from './task.ts';
import { taskIdProblem } from './task-id.ts';

// Answers are parsed leniently (see answerObject): unknown fields are kept at run time, unknown
// status and fail_reason strings pass, and a known field that is null on the wire reads as
// absent. Only what a caller cannot do without (the task id, the status) is required.

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
export const TaskAttemptSchema: z.ZodMiniType<TaskAttempt> = answerObject(
  {},
  { attempt_no: z.number(), provider: z.string(), status: z.string(), fail_reason: z.string(), elapsed_s: z.number() },
);

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
export const TaskOutputSchema: z.ZodMiniType<TaskOutput> = z.looseObject({ url: z.string() });

const taskId = z.string().check(
  z.check((ctx) => {
    const problem = taskIdProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: `task_id ${problem}`, input: ctx.value });
  }),
);
const status = z.string({ error: 'status must be a string' });

const submissionFields = {
  task_id: taskId,
  // A submission is `pending` by definition (spec 2.1), so an absent or null status reads so.
  status: z.pipe(z.optional(z.nullable(status)), z.transform((value) => value ?? 'pending')),
};
const submissionOptional = { model: z.string(), created_at: z.number() };

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
export const TaskSubmissionSchema: z.ZodMiniType<TaskSubmission> = answerObject(submissionFields, submissionOptional);

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
export const VideoTaskSubmissionSchema: z.ZodMiniType<VideoTaskSubmission> = answerObject(submissionFields, {
  ...submissionOptional,
  normalized_model: z.string(),
  operation: z.string(),
  media_type: z.string(),
});

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
export const TaskResultSchema: z.ZodMiniType<TaskResult> = answerObject(
  { task_id: taskId, status },
  {
    model: z.string(),
    operation: z.string(),
    media_type: z.string(),
    normalized_model: z.string(),
    provider: z.string(),
    elapsed_s: z.number(),
    total_elapsed_s: z.number(),
    created_at: z.number(),
    completed_at: z.number(),
    data: z.array(TaskOutputSchema),
    total_cost: z.number(),
    attempt_count: z.number(),
    attempts: z.array(TaskAttemptSchema),
    fail_reason: z.string(),
  },
);
