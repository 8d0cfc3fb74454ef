import { ValidationError } from '../errors.ts';
import { PlainDataError, toPlainData } from '../internal/plain-data.ts';

/** Largest input read as data (1 MiB as JSON, the proxy's cap on a JSON body): a submission's params are a few KB. */
const MAX_INPUT_BYTES = 1024 * 1024;

/**
 * Caller input read once, into plain data, at the door of a public method: every property is
 * read exactly once (a getter runs once, a `Proxy` trap once per read), so what the rules check
 * is what is sent, and nothing the caller's objects do later changes it. Behaviour is kept as
 * given (functions, class instances such as a `Blob` or an `AbortSignal`, and below the top an
 * object with a method: a store, a logger); data is copied. A getter or trap that throws, a
 * cycle, a `bigint` or a `symbol`, nesting over 64 levels or data over 1 MiB is a
 * `ValidationError` naming the field, before anything is sent.
 *
 * @param context names the input in the error (`images.generate params`).
 * @param kind `record` (params, options): an object is read as its own fields whatever its
 * class; `value` (a file, a download's source): a class instance is kept as given.
 */
export function readCallerInput<T>(value: T, context: string, kind: 'record' | 'value' = 'record'): T {
  if (value === undefined) return value;
  try {
    return toPlainData(value, { maxBytes: MAX_INPUT_BYTES, keepBehaviour: true, record: kind === 'record' && typeof value === 'object' }) as T;
  } catch (error) {
    if (!(error instanceof PlainDataError)) throw error;
    const message = error.problem === 'too_large' ? 'is over 1 MiB as JSON (files go as file objects, which are uploaded, not as data)' : error.message;
    throw new ValidationError([{ path: error.path, message }], context);
  }
}
