import type * as z from 'zod/mini';
import { ATTEMPT_ANSWER, OUTPUT_ANSWER, SUBMISSION_ANSWER, TASK_ANSWER, VIDEO_SUBMISSION_ANSWER } from './answers.ts';
import { answerSchema } from './lenient.ts';
import type { TaskAttempt, TaskOutput, TaskResult, TaskSubmission, VideoTaskSubmission } from './task.ts';

// Answers are read tolerantly (see tolerant.ts, and answers.ts for the fields of each).

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
export const TaskAttemptSchema: z.ZodMiniType<TaskAttempt> = answerSchema(ATTEMPT_ANSWER);

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
export const TaskOutputSchema: z.ZodMiniType<TaskOutput> = answerSchema(OUTPUT_ANSWER);

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
export const TaskSubmissionSchema: z.ZodMiniType<TaskSubmission> = answerSchema(SUBMISSION_ANSWER);

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
export const VideoTaskSubmissionSchema: z.ZodMiniType<VideoTaskSubmission> = answerSchema(VIDEO_SUBMISSION_ANSWER);

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
export const TaskResultSchema: z.ZodMiniType<TaskResult> = answerSchema(TASK_ANSWER);
