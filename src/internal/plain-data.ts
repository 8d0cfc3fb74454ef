/**
 * The one sanitiser of data the SDK did not make: every task answer, error body and callback
 * body passes it before anything reads it.
 */

/** A task result nests 3 levels; anything past this is an attack or a bug, not a task. */
export const MAX_DEPTH = 64;
/**
 * Items in one array. A task has a handful of outputs and attempts; the cap keeps a hostile
 * answer (1 MB of JSON holds 500,000 array items) from costing 500,000 validation issues,
 * which overflowed zod's issue collection with a raw `RangeError`.
 */
export const MAX_ARRAY_ITEMS = 10_000;

/** Why a value was refused. */
export type PlainDataProblem = 'too_large' | 'too_deep' | 'too_many_items' | 'not_data';

/** A value refused by `toPlainData`; callers turn it into their own `OmniMediaError`. */
export class PlainDataError extends Error {
  declare readonly problem: PlainDataProblem;

  constructor(problem: PlainDataProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

/** An object literal's kind of object: `Object.prototype` or no prototype. */
export function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Copy a JSON-like value into fresh plain data: objects with `Object.prototype`, arrays,
 * strings, numbers, booleans, null. `__proto__` keys are dropped (`JSON.parse` makes them own
 * keys), so neither the copy nor a later `Object.assign` or merge of it can swap a prototype.
 * Depth and array length are bounded; with `maxBytes`, so is the size as JSON (for values a
 * caller built, which were never text).
 *
 * @throws PlainDataError
 */
export function toPlainData(value: unknown, maxBytes?: number): unknown {
  let size = 0;
  const grow = (bytes: number) => {
    if (maxBytes === undefined) return;
    size += bytes;
    if (size > maxBytes) throw new PlainDataError('too_large', `about ${size.toLocaleString('en-US')} bytes as JSON, and counting`);
  };
  const copy = (input: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new PlainDataError('too_deep', `nests deeper than ${MAX_DEPTH} levels`);
    switch (typeof input) {
      case 'string':
        grow(input.length + 2);
        return input;
      case 'number':
      case 'boolean':
        grow(8);
        return input;
      case 'object': {
        if (input === null) {
          grow(4);
          return null;
        }
        if (Array.isArray(input)) {
          if (input.length > MAX_ARRAY_ITEMS)
            throw new PlainDataError('too_many_items', `holds an array of ${input.length.toLocaleString('en-US')} items (at most ${MAX_ARRAY_ITEMS.toLocaleString('en-US')})`);
          grow(2);
          const out: unknown[] = [];
          for (let i = 0; i < input.length; i++) {
            grow(1);
            out.push(copy(input[i], depth + 1));
          }
          return out;
        }
        if (!isPlainObject(input)) throw new PlainDataError('not_data', `holds a ${input.constructor?.name ?? 'non-plain'} object, not JSON data`);
        grow(2);
        const out: Record<string, unknown> = {};
        for (const key of Object.keys(input)) {
          if (key === '__proto__') continue;
          const item = (input as Record<string, unknown>)[key];
          if (item === undefined) continue; // as JSON.stringify would
          grow(key.length + 4);
          out[key] = copy(item, depth + 1);
        }
        return out;
      }
      default:
        throw new PlainDataError('not_data', `holds a ${typeof input}, which JSON cannot carry`);
    }
  };
  return copy(value, 0);
}
