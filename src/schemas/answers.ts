/**
 * What each answer of the service holds (spec 2.1 to 2.3), for tolerant reading (tolerant.ts):
 * the fields it cannot do without, and its other known fields with their types. Zod-free: the
 * SDK reads answers with these at once; omnimedia/schemas wraps the same in zod schemas.
 */
import type { AnswerShape, Fields } from './tolerant.ts';

const ATTEMPT: Fields = { attempt_no: 'n', provider: 's', status: 's', fail_reason: 's', elapsed_s: 'n' };
const OUTPUT: Fields = { url: 's' };
const SUBMISSION: Fields = { model: 's', created_at: 't' };
const UPLOAD: Fields = { filename: 's', content_type: 's', bytes: 'n', created_at: 't', expires_at: 't' };
const TASK_ID = { task_id: 'id' } as const;

/** One attempt of a task (an item of `attempts`). */
export const ATTEMPT_ANSWER: AnswerShape = { required: {}, fields: ATTEMPT };
/** A produced file (an item of `data`). */
export const OUTPUT_ANSWER: AnswerShape = { required: { url: 's' }, fields: {} };
/** A task, as the task query and callbacks give it. */
export const TASK_ANSWER: AnswerShape = {
  required: { ...TASK_ID, status: 's' },
  fields: {
    model: 's',
    operation: 's',
    media_type: 's',
    normalized_model: 's',
    provider: 's',
    elapsed_s: 'n',
    total_elapsed_s: 'n',
    created_at: 't',
    completed_at: 't',
    data: { list: OUTPUT, id: 'url' },
    total_cost: 'n',
    attempt_count: 'n',
    attempts: { list: ATTEMPT },
    fail_reason: 's',
  },
};
// A submission is `pending` by definition (spec 2.1), so an absent or unreadable status reads so.
/** An image submission's answer. */
export const SUBMISSION_ANSWER: AnswerShape = { required: { ...TASK_ID, status: 's' }, fields: SUBMISSION, defaults: { status: 'pending' } };
/** A video submission's answer. */
export const VIDEO_SUBMISSION_ANSWER: AnswerShape = {
  ...SUBMISSION_ANSWER,
  fields: { ...SUBMISSION, normalized_model: 's', operation: 's', media_type: 's' },
};
/** An image upload record. */
export const IMAGE_UPLOAD_ANSWER: AnswerShape = { required: { url: 's' }, fields: { ...UPLOAD, width: 'n', height: 'n' } };
/** A video upload record. */
export const VIDEO_UPLOAD_ANSWER: AnswerShape = { required: { upload_id: 'id' }, fields: { ...UPLOAD, url: 's' } };
