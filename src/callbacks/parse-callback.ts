import type { TaskResult } from '../schemas/task.ts';
import { CallbackError, type CallbackErrorReason } from '../errors.ts';
import { concatBytes } from '../internal/bytes.ts';
import { contentLength } from '../internal/content-length.ts';
import { resolveParseCallbackOptions } from '../option-checks.ts';
import type { ParseCallbackOptions } from '../options.ts';
import { isPlainObject, PlainDataError, toPlainData, type PlainDataProblem } from '../internal/plain-data.ts';
import { TASK_ANSWER } from '../schemas/answers.ts';
import { readAnswer } from '../schemas/tolerant.ts';
import { errorText } from '../internal/error-text.ts';

/**
 * What `parseCallback` reads: the raw body in any form a server hands it over.
 *
 * @example
 * ```ts
 * const task = await parseCallback(request);          // a fetch Request
 * const same = await parseCallback(await request.text()); // or its text, bytes, or a parsed object
 * ```
 */
export type CallbackBody = string | Uint8Array | ArrayBuffer | Blob | Request | TaskResult | Record<string, unknown>;

function tooLarge(size: number | string, max: number): CallbackError {
  return new CallbackError('too_large', `Callback body is larger than ${max.toLocaleString('en-US')} bytes (${size})`);
}

/**
 * Read a stream chunk by chunk and stop at `max`: an endless or huge body costs at most `max`
 * bytes of memory. Exported for the Node handler, which reads `req` the same way.
 */
export async function readCapped(
  next: () => Promise<IteratorResult<unknown>>,
  max: number,
  onTooLarge: () => void,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let step: IteratorResult<unknown>;
    try {
      step = await next();
    } catch (error) {
      throw new CallbackError('invalid_body', `Callback body could not be read: ${errorText(error)}`, {
        cause: error,
      });
    }
    if (step.done) break;
    const chunk = typeof step.value === 'string' ? new TextEncoder().encode(step.value) : step.value;
    if (!(chunk instanceof Uint8Array)) throw new CallbackError('invalid_body', 'Callback body stream yielded something other than bytes');
    total += chunk.byteLength;
    if (total > max) {
      onTooLarge();
      throw tooLarge(`more than ${max.toLocaleString('en-US')} bytes sent`, max);
    }
    parts.push(chunk);
  }
  return concatBytes(parts);
}

/**
 * A fetch `Request`, by shape: adapters (Hono's Node server among them) hand over request
 * objects of their own class, or swap the global `Request`, so `instanceof` is not enough.
 */
function isRequestLike(value: unknown): value is Request {
  if (typeof Request !== 'undefined' && value instanceof Request) return true;
  if (typeof value !== 'object' || value === null || isPlainObject(value)) return false;
  const candidate = value as Partial<Request>;
  return typeof candidate.bodyUsed === 'boolean' && typeof candidate.headers?.get === 'function' && typeof candidate.method === 'string' && 'body' in candidate;
}

async function readRequest(request: Request, max: number): Promise<Uint8Array> {
  const declared = contentLength(request.headers.get('content-length'));
  if (declared !== undefined && declared > max) throw tooLarge(`content-length ${declared}`, max);
  if (request.bodyUsed) throw new CallbackError('invalid_body', 'Callback request body was already read');
  if (!request.body) return new Uint8Array(0);
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = request.body.getReader();
  } catch (error) {
    throw new CallbackError('invalid_body', 'Callback request body is locked by another reader', { cause: error });
  }
  return readCapped(() => reader.read(), max, () => {
    // Stop the sender; nothing more is read. A rejection here changes nothing for us.
    reader.cancel().catch(() => {});
  });
}

function decode(bytes: Uint8Array): string {
  try {
    // fatal: malformed UTF-8 is an error, not U+FFFD, so what we parse is what was sent.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch (error) {
    throw new CallbackError('invalid_json', 'Callback body is not valid UTF-8', { cause: error });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CallbackError('invalid_json', `Callback body is not JSON: ${errorText(error)}`, { cause: error });
  }
}

const REASON_OF: Record<PlainDataProblem, CallbackErrorReason> = {
  too_large: 'too_large',
  too_deep: 'invalid_shape',
  too_many_items: 'invalid_shape',
  not_data: 'invalid_body',
  unreadable: 'invalid_body',
  cycle: 'invalid_shape',
};

/** The body as fresh plain data (see `toPlainData`), or the `CallbackError` saying why not. */
function sanitized(value: unknown, max: number, countSize: boolean): unknown {
  try {
    return toPlainData(value, countSize ? max : undefined);
  } catch (error) {
    if (!(error instanceof PlainDataError)) throw error;
    if (error.problem === 'too_large') throw tooLarge(error.message, max);
    throw new CallbackError(REASON_OF[error.problem], `Callback body ${error.message}`);
  }
}

/** The body read as a task, tolerantly (schemas/tolerant.ts), or `invalid_shape` naming what it lacks. */
function validate(data: unknown): TaskResult {
  const read = readAnswer(data, TASK_ANSWER);
  if ('value' in read) return read.value as unknown as TaskResult;
  const taskId = (data as { task_id?: unknown } | null)?.task_id;
  throw new CallbackError('invalid_shape', `Callback body is not a task result (${read.problems.map((p) => `${p.field || 'body'}: ${p.message}`).join('; ')})`, {
    taskId: typeof taskId === 'string' && taskId ? taskId : undefined,
  });
}

async function parseUnchecked(body: CallbackBody, max: number): Promise<TaskResult> {
  if (typeof body === 'string') {
    // Every UTF-16 unit is at least one UTF-8 byte, so a longer string is surely too large.
    // (and a shorter one is at most three bytes a unit: the encoding costs at most 3 × max).
    if (body.length > max || new TextEncoder().encode(body).byteLength > max) throw tooLarge(`${body.length.toLocaleString('en-US')} characters`, max);
    return validate(sanitized(parseJson(body), max, false));
  }
  let bytes: Uint8Array;
  if (body instanceof Uint8Array) bytes = body;
  else if (body instanceof ArrayBuffer) bytes = new Uint8Array(body);
  else if (ArrayBuffer.isView(body)) bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  else if (typeof Blob !== 'undefined' && body instanceof Blob) {
    if (body.size > max) throw tooLarge(`${body.size.toLocaleString('en-US')} bytes`, max);
    bytes = new Uint8Array(await body.arrayBuffer());
  } else if (isRequestLike(body)) bytes = await readRequest(body, max);
  else if (typeof body === 'object' && body !== null) {
    // Already parsed by a framework (Express's json(), Fastify...): copied, bounded, validated.
    return validate(sanitized(body, max, true));
  } else {
    throw new CallbackError(
      'invalid_body',
      `Callback body must be a string, bytes, a parsed object or a Request (got ${body === null ? 'null' : typeof body})`,
    );
  }
  if (bytes.byteLength > max) throw tooLarge(`${bytes.byteLength.toLocaleString('en-US')} bytes`, max);
  return validate(sanitized(parseJson(decode(bytes)), max, false));
}

/**
 * Parse a completion callback body into a typed task result. The body is untrusted input (the
 * spec signs nothing): it is size-capped, parsed strictly (valid UTF-8, valid JSON), copied
 * into plain data and checked against the task schema. Anything else throws `CallbackError`
 * with a `reason` (`too_large`, `invalid_body`, `invalid_json`, `invalid_shape`), never
 * another error type.
 *
 * This only checks the shape: anyone who knows the URL can post a well-formed fake. Use
 * `client.callbacks.verify()` (or the ready handlers) to get the service's own version.
 *
 * @example
 * ```ts
 * import { parseCallback } from 'omnimedia';
 *
 * const task = await parseCallback(await request.text());
 * console.log(task.task_id, task.status);
 * ```
 */
export async function parseCallback(body: CallbackBody, options?: ParseCallbackOptions): Promise<TaskResult> {
  const maxBytes = resolveParseCallbackOptions(options);
  try {
    return await parseUnchecked(body, maxBytes);
  } catch (error) {
    if (error instanceof CallbackError) throw error;
    // A hostile Proxy or getter, a stack overflow: still a CallbackError, never something else.
    throw new CallbackError('invalid_body', `Callback body could not be read: ${errorText(error)}`, {
      cause: error,
    });
  }
}
