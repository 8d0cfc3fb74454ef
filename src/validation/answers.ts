import { APIError } from '../errors.ts';
import { answerNotes, readAnswer, type AnswerShape } from '../schemas/tolerant.ts';

/** Problems named in a message at most; the rest are counted. */
const MAX_PROBLEMS_SHOWN = 5;

/** What a response said besides its body, for the error about a body we cannot use. */
export interface AnswerContext {
  taskId?: string | undefined;
  status?: number | undefined;
  headers?: Headers | undefined;
  requestId?: string | undefined;
  /** Where a field read tolerantly is told, once per field and kind (the client's logger). */
  warnOnce?: ((key: string, message: string) => void) | undefined;
}

/**
 * Read an answer of the service by its shape, tolerantly (see schemas/tolerant.ts): each field
 * read or left out is told to `warnOnce`. A body without what it cannot do without (a task id
 * above all) is an `APIError` that keeps the raw body and the response's status, headers and
 * request id. Zod-free, so reading an answer loads nothing.
 */
export function parseResponse<T>(shape: AnswerShape, body: unknown, what: string, context: AnswerContext = {}): T {
  const read = readAnswer(body, shape);
  if ('problems' in read) {
    const { problems } = read;
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `${p.field || 'body'}: ${p.message}`);
    const more = problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : '';
    throw new APIError(`${what}: unexpected response from the service (${shown.join('; ')}${more})`, { ...context, body });
  }
  for (const { key, text } of answerNotes(read.value)) context.warnOnce?.(key, `${what}: ${text} (rawAnswer() keeps it as sent; said once)`);
  return read.value as T;
}
