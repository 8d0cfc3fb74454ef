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
export type PlainDataProblem = 'too_large' | 'too_deep' | 'too_many_items' | 'not_data' | 'unreadable' | 'cycle';

/** A value refused by `toPlainData`; callers turn it into their own `OmniMediaError`. */
export class PlainDataError extends Error {
  declare readonly problem: PlainDataProblem;
  /** Where in the value, as `ValidationIssue.path` writes it (`image[2]`, `messages[0].content`); `''` for the value itself. */
  declare readonly path: string;

  constructor(problem: PlainDataProblem, message: string, path = '') {
    super(message);
    this.problem = problem;
    this.path = path;
  }
}

/** An object literal's kind of object: `Object.prototype` or no prototype. */
export function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** How `toPlainData` reads a value. */
export interface PlainDataReading {
  /** The most its JSON may weigh, counted as it is read (for values a caller built, which were never text). */
  maxBytes?: number | undefined;
  /**
   * Caller input: behaviour is kept as given, by reference (a function, a class instance such
   * as a `Blob` or an `AbortSignal`, and below the top an object with a method: a store, a
   * logger); only data is copied. Without it, any of these is `not_data`.
   */
  keepBehaviour?: boolean | undefined;
}

/** `messages[0].content`: a path in `ValidationIssue.path`'s words. */
const pathOf = (parent: string, key: string | number) => (typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key);

const kindOf = (value: unknown) => (typeof value === 'number' ? `the number ${String(value)}` : `a ${typeof value}`);

/**
 * Copy a JSON-like value into fresh plain data: objects with `Object.prototype`, arrays,
 * strings, finite numbers, booleans, null. `__proto__` keys are dropped (`JSON.parse` makes them
 * own keys), so neither the copy nor a later `Object.assign` or merge of it can swap a prototype;
 * `undefined` properties are dropped, as `JSON.stringify` drops them. Every property is read once
 * (a getter runs once, a `Proxy` trap once per read), so what is checked later is what is sent.
 * Depth, array length, cycles and (with `maxBytes`) the size as JSON are bounded; a read that
 * throws is `unreadable`.
 *
 * @throws PlainDataError naming where in the value
 */
export function toPlainData(value: unknown, reading: number | PlainDataReading = {}): unknown {
  const { maxBytes, keepBehaviour } = typeof reading === 'number' ? { maxBytes: reading, keepBehaviour: false } : reading;
  let size = 0;
  const ancestors = new Set<object>();
  const grow = (bytes: number, path: string) => {
    if (maxBytes === undefined) return;
    size += bytes;
    if (size > maxBytes) throw new PlainDataError('too_large', `about ${size.toLocaleString('en-US')} bytes as JSON, and counting`, path);
  };
  /** `read()`, or `unreadable` at `path` when it throws (a getter, a Proxy's trap, a revoked Proxy). */
  const guarded = <T>(path: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof PlainDataError) throw error;
      throw new PlainDataError('unreadable', `cannot be read (${String((error as Error | undefined)?.message ?? error).slice(0, 200)})`, path);
    }
  };
  const copy = (input: unknown, depth: number, path: string): unknown => {
    if (depth > MAX_DEPTH) throw new PlainDataError('too_deep', `nests deeper than ${MAX_DEPTH} levels`, path);
    switch (typeof input) {
      case 'string':
        grow(input.length + 2, path);
        return input;
      case 'number':
        // Caller input keeps it for the rules to name (`n`: got NaN); JSON cannot carry it.
        if (!Number.isFinite(input) && !keepBehaviour) throw new PlainDataError('not_data', `holds ${kindOf(input)}, which JSON cannot carry`, path);
        grow(8, path);
        return input;
      case 'boolean':
        grow(8, path);
        return input;
      case 'function':
        if (keepBehaviour) return input;
        throw new PlainDataError('not_data', 'holds a function, which JSON cannot carry', path);
      case 'object': {
        if (input === null) {
          grow(4, path);
          return null;
        }
        if (ancestors.has(input)) throw new PlainDataError('cycle', 'holds itself (a cycle), which JSON cannot carry', path);
        const isArray = guarded(path, () => Array.isArray(input));
        if (!isArray && !guarded(path, () => isPlainObject(input))) {
          if (keepBehaviour) return input;
          const name = guarded(path, () => (input as { constructor?: { name?: unknown } }).constructor?.name);
          throw new PlainDataError('not_data', `holds a ${typeof name === 'string' && name ? name : 'non-plain'} object, not JSON data`, path);
        }
        ancestors.add(input);
        try {
          return isArray ? copyArray(input as unknown[], depth, path) : copyObject(input as Record<string, unknown>, depth, path);
        } finally {
          ancestors.delete(input);
        }
      }
      default:
        throw new PlainDataError('not_data', `holds ${kindOf(input)}, which JSON cannot carry`, path);
    }
  };
  const copyArray = (input: unknown[], depth: number, path: string): unknown[] => {
    const length = guarded(path, () => input.length);
    if (length > MAX_ARRAY_ITEMS)
      throw new PlainDataError('too_many_items', `holds an array of ${length.toLocaleString('en-US')} items (at most ${MAX_ARRAY_ITEMS.toLocaleString('en-US')})`, path);
    grow(2, path);
    const out: unknown[] = [];
    for (let i = 0; i < length; i++) {
      grow(1, path);
      const item = guarded(pathOf(path, i), () => input[i]);
      // As JSON.stringify writes them: a hole or an undefined item is null.
      out.push(item === undefined ? null : copy(item, depth + 1, pathOf(path, i)));
    }
    return out;
  };
  const copyObject = (input: Record<string, unknown>, depth: number, path: string): unknown => {
    grow(2, path);
    const keys = guarded(path, () => Object.keys(input));
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      if (key === '__proto__') continue;
      const at = pathOf(path, key);
      const item = guarded(at, () => input[key]);
      if (item === undefined) continue; // as JSON.stringify would
      // An object with a method is a port (a store, a logger): kept as given, not copied.
      if (keepBehaviour && depth > 0 && typeof item === 'function') return input;
      grow(key.length + 4, at);
      out[key] = copy(item, depth + 1, at);
    }
    return out;
  };
  return copy(value, 0, '');
}
