/**
 * The type of every known field of a task answer (service-spec.md), as `typeof` names it, and
 * `array` for the lists: what "typed truthfully" means for the tolerant reading and its fuzz.
 */
export const TASK_FIELD_TYPES = {
  task_id: 'string',
  status: 'string',
  model: 'string',
  operation: 'string',
  media_type: 'string',
  normalized_model: 'string',
  provider: 'string',
  fail_reason: 'string',
  elapsed_s: 'number',
  total_elapsed_s: 'number',
  created_at: 'number',
  completed_at: 'number',
  total_cost: 'number',
  attempt_count: 'number',
  data: 'array',
  attempts: 'array',
} as const;

/** The same for an entry of `attempts`. */
export const ATTEMPT_FIELD_TYPES = { attempt_no: 'number', provider: 'string', status: 'string', fail_reason: 'string', elapsed_s: 'number' } as const;

/** `typeof value`, or `array` for an array. */
export const typeName = (value: unknown): string => (Array.isArray(value) ? 'array' : typeof value);
