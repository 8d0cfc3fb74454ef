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

/** `read()`, or `undefined` when it throws (a getter or a Proxy trap of a caller's object: no usable value). */
export function readOrUndefined<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * A plain object (an object literal's kind), checked without trusting the value: a class
 * instance, a function or a Proxy that caller input kept as given is not one, and never throws.
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return readOrUndefined(() => typeof value === 'object' && value !== null && isPlainObject(value)) === true;
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
  /**
   * The value is a record of fields (params, options): read as its own enumerable properties
   * whatever its prototype (an instance of an options class), as `JSON.stringify` reads it.
   */
  record?: boolean | undefined;
}

/** `messages[0].content`: a trail of keys as `ValidationIssue.path` writes it. */
const pathOf = (trail: readonly (string | number)[]) => trail.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${key}` : key), '');

const kindOf = (value: unknown) => (typeof value === 'number' ? `the number ${String(value)}` : `a ${typeof value}`);
const messageOf = (error: unknown) => {
  try {
    return String((error as Error | undefined)?.message ?? error).slice(0, 200);
  } catch {
    return 'unreadable';
  }
};

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
  const { maxBytes, keepBehaviour, record } = typeof reading === 'number' ? { maxBytes: reading, keepBehaviour: false, record: false } : reading;
  let size = 0;
  // Where the copy is, built into a path only for an error (a task answer is copied on every query).
  const trail: (string | number)[] = [];
  // The objects above the one being copied: a stack (at most MAX_DEPTH deep, a task's is 3),
  // cheaper than a Set for a copy made on every answer.
  const ancestors: object[] = [];
  const refuse = (problem: PlainDataProblem, message: string) => new PlainDataError(problem, message, pathOf(trail));
  const grow = (bytes: number) => {
    if (maxBytes === undefined) return;
    size += bytes;
    if (size > maxBytes) throw refuse('too_large', `about ${size.toLocaleString('en-US')} bytes as JSON, and counting`);
  };
  const unreadable = (error: unknown) => (error instanceof PlainDataError ? error : refuse('unreadable', `cannot be read (${messageOf(error)})`));
  const copy = (input: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw refuse('too_deep', `nests deeper than ${MAX_DEPTH} levels`);
    switch (typeof input) {
      case 'string':
        grow(input.length + 2);
        return input;
      case 'number':
        // Caller input keeps it for the rules to name (`n`: got NaN); JSON cannot carry it.
        if (!Number.isFinite(input) && !keepBehaviour) throw refuse('not_data', `holds ${kindOf(input)}, which JSON cannot carry`);
        grow(8);
        return input;
      case 'boolean':
        grow(8);
        return input;
      case 'function':
        if (keepBehaviour) return input;
        throw refuse('not_data', 'holds a function, which JSON cannot carry');
      case 'object': {
        if (input === null) {
          grow(4);
          return null;
        }
        if (ancestors.includes(input)) throw refuse('cycle', 'holds itself (a cycle), which JSON cannot carry');
        let isArray: boolean;
        let plain: boolean;
        try {
          isArray = Array.isArray(input);
          plain = isArray || (record === true && depth === 0) || isPlainObject(input);
        } catch (error) {
          throw unreadable(error);
        }
        if (!plain) {
          if (keepBehaviour) return input;
          let name: unknown;
          try {
            name = (input as { constructor?: { name?: unknown } }).constructor?.name;
          } catch (error) {
            throw unreadable(error);
          }
          throw refuse('not_data', `holds a ${typeof name === 'string' && name ? name : 'non-plain'} object, not JSON data`);
        }
        ancestors.push(input);
        try {
          return isArray ? copyArray(input as unknown[], depth) : copyObject(input as Record<string, unknown>, depth);
        } finally {
          ancestors.pop();
        }
      }
      default:
        throw refuse('not_data', `holds ${kindOf(input)}, which JSON cannot carry`);
    }
  };
  const copyArray = (input: unknown[], depth: number): unknown[] => {
    let length: number;
    try {
      length = input.length;
    } catch (error) {
      throw unreadable(error);
    }
    if (length > MAX_ARRAY_ITEMS)
      throw refuse('too_many_items', `holds an array of ${length.toLocaleString('en-US')} items (at most ${MAX_ARRAY_ITEMS.toLocaleString('en-US')})`);
    grow(2);
    const out: unknown[] = [];
    for (let i = 0; i < length; i++) {
      grow(1);
      trail.push(i);
      let item: unknown;
      try {
        item = input[i];
      } catch (error) {
        throw unreadable(error);
      }
      // As JSON.stringify writes them: a hole or an undefined item is null.
      out.push(item === undefined ? null : copy(item, depth + 1));
      trail.pop();
    }
    return out;
  };
  const copyObject = (input: Record<string, unknown>, depth: number): unknown => {
    grow(2);
    let keys: string[];
    try {
      keys = Object.keys(input);
    } catch (error) {
      throw unreadable(error);
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      if (key === '__proto__') continue;
      trail.push(key);
      let item: unknown;
      try {
        item = input[key];
      } catch (error) {
        throw unreadable(error);
      }
      // An object with a method is a port (a store, a logger): kept as given, not copied.
      if (keepBehaviour && depth > 0 && typeof item === 'function') {
        trail.length -= 1;
        return input;
      }
      if (item !== undefined) {
        // As JSON.stringify would: an undefined property is left out.
        grow(key.length + 4);
        out[key] = copy(item, depth + 1);
      }
      trail.pop();
    }
    return out;
  };
  return copy(value, 0);
}
