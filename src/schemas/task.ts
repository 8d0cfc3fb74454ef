import * as z from 'zod/mini';
import { nullish } from './lenient.ts';

// Responses are parsed leniently: unknown fields are kept (looseObject), unknown status and
// fail_reason strings pass, and known fields may be null. Only what a caller cannot do
// without (the task id, the status) is required.

/** One attempt of a task at a provider. A failed attempt carries its `fail_reason`. */
export const TaskAttemptSchema = z.looseObject({
  attempt_no: nullish(z.number()),
  provider: nullish(z.string()),
  /** `completed` or `failed` in the spec; other strings are accepted. */
  status: nullish(z.string()),
  /** e.g. `provider_timeout`; the full list is not in the spec. */
  fail_reason: nullish(z.string()),
  elapsed_s: nullish(z.number()),
});
export type TaskAttempt = z.infer<typeof TaskAttemptSchema>;

/** A produced file. */
export const TaskOutputSchema = z.looseObject({ url: z.string() });
export type TaskOutput = z.infer<typeof TaskOutputSchema>;

const taskId = z.string().check(z.minLength(1, 'task_id must be a non-empty string'));
const status = z.string({ error: 'status must be a string' });

/** The answer to an image submission (`POST /v1/images/generations`, `/v1/images/edits`). */
export const TaskSubmissionSchema = z.looseObject({
  task_id: taskId,
  // A submission is `pending` by definition (spec 2.1), so an absent or null status reads so.
  status: z.pipe(nullish(status), z.transform((value) => value ?? 'pending')),
  model: nullish(z.string()),
  created_at: nullish(z.number()),
});
export type TaskSubmission = z.infer<typeof TaskSubmissionSchema>;

/** The answer to a video submission (`POST /v1/video/generate`, `/v1/video/edits`, status 202). */
export const VideoTaskSubmissionSchema = z.looseObject({
  ...TaskSubmissionSchema.shape,
  /** The billing specification matched, e.g. `omni_flash_1080p_8s`. */
  normalized_model: nullish(z.string()),
  operation: nullish(z.string()),
  media_type: nullish(z.string()),
});
export type VideoTaskSubmission = z.infer<typeof VideoTaskSubmissionSchema>;

/** A task as `GET /v1/tasks/{id}` returns it; callback bodies are identical. */
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
export type TaskResult = z.infer<typeof TaskResultSchema>;
