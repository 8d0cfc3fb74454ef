// Property tests of parseCallback: whatever arrives, it returns a task result made of plain
// data or throws CallbackError, and the reason is the right one. `npm test` runs a quick pass;
// `npm run fuzz` sets FUZZ_RUNS (runs per property) for the long one and prints the totals.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CallbackError, parseCallback, type TaskResult } from 'omnimedia';
import { rawAnswer } from 'omnimedia/schemas';
import { taskIdProblem } from '../../src/schemas/task-id.ts';
import { TASK_FIELD_TYPES, typeName } from '../helpers/task-fields.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
// A hang guard (vitest.config.ts): CPU-bound, 31.5 s at a load of 25 for what takes 2 s idle.
const TIMEOUT = Math.max(60_000, RUNS * 60);
const settings = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };
let inputs = 0;
const started = performance.now();

afterAll(() => {
  if (process.env.FUZZ_RUNS) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`fuzz: ${inputs.toLocaleString('en-US')} inputs through parseCallback in ${seconds} s`);
  }
});

const encoder = new TextEncoder();
const OBJECT_PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

/** Outcome of one input: the task, or the CallbackError. Any other throw fails the property. */
async function outcome(body: unknown, options?: { maxBytes?: number }): Promise<TaskResult | CallbackError> {
  inputs++;
  try {
    return await parseCallback(body as never, options);
  } catch (error) {
    if (error instanceof CallbackError) return error;
    throw new Error(`parseCallback threw ${(error as Error)?.name}: ${String(error)}`);
  }
}

/** Every object in `value` is a plain object or array, no own `__proto__`, no functions. */
function assertPlainData(value: unknown, depth = 0): void {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return;
  expect(typeof value).toBe('object');
  const proto = Object.getPrototypeOf(value) as unknown;
  expect(proto === Object.prototype || proto === Array.prototype).toBe(true);
  expect(Object.hasOwn(value as object, '__proto__')).toBe(false);
  for (const item of Object.values(value as object)) assertPlainData(item, depth + 1);
}

/** The oracle of a copy: `value` with every own `__proto__` key left out. */
function withoutProtoKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutProtoKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== '__proto__') Object.defineProperty(out, k, { value: withoutProtoKeys(v), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Known optional fields of a task result (and of its attempts): a null among them reads as absent. */
const KNOWN_TASK_FIELDS = ['model', 'operation', 'media_type', 'normalized_model', 'provider', 'elapsed_s', 'total_elapsed_s', 'created_at', 'completed_at', 'data', 'total_cost', 'attempt_count', 'attempts', 'fail_reason'];
const KNOWN_ATTEMPT_FIELDS = ['attempt_no', 'provider', 'status', 'fail_reason', 'elapsed_s'];

function dropNulls(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out = { ...value };
  for (const key of keys) if (out[key] === null) delete out[key];
  return out;
}

/** The oracle of the lenient reading: known fields that are null are left out. */
function withoutKnownNulls(task: unknown): unknown {
  const out = dropNulls(task as Record<string, unknown>, KNOWN_TASK_FIELDS);
  if (Array.isArray(out.attempts)) out.attempts = out.attempts.map((a: Record<string, unknown>) => dropNulls(a, KNOWN_ATTEMPT_FIELDS));
  return out;
}

function assertUnpolluted(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(OBJECT_PROTO_KEYS);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** A well-formed task, with the spec's fields and some unknown ones. */
const taskArb = fc.record(
  {
    // Any id the task id rule accepts (src/schemas/task-id.ts); the rule's refusals are a property below.
    task_id: fc.string({ minLength: 1, maxLength: 40 }).filter((id) => taskIdProblem(id) === undefined),
    status: fc.oneof(fc.constantFrom('pending', 'completed', 'failed', 'processing'), fc.string()),
    model: fc.oneof(fc.string(), fc.constant(null)),
    provider: fc.string(),
    elapsed_s: fc.integer(),
    total_elapsed_s: fc.integer(),
    created_at: fc.integer({ min: 0 }),
    completed_at: fc.oneof(fc.integer({ min: 0 }), fc.constant(null)),
    total_cost: fc.double({ noNaN: true, noDefaultInfinity: true }),
    attempt_count: fc.nat(),
    data: fc.array(fc.record({ url: fc.webUrl() }), { maxLength: 4 }),
    attempts: fc.array(
      fc.record(
        {
          attempt_no: fc.nat(),
          provider: fc.string(),
          status: fc.constantFrom('completed', 'failed'),
          fail_reason: fc.string(),
          elapsed_s: fc.nat(),
        },
        { requiredKeys: ['attempt_no'] },
      ),
      { maxLength: 3 },
    ),
    extra: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: ['task_id', 'status'] },
);

const taskLike = (value: unknown): value is TaskResult =>
  typeof value === 'object' && value !== null && !(value instanceof CallbackError);

describe('parseCallback under fuzzing', () => {
  it('any JSON value, as text, bytes or object: a task of plain data or a CallbackError', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.constantFrom('text', 'bytes', 'object'), async (value, form) => {
        const text = JSON.stringify(value);
        // An object goes in as itself; a primitive as an object would be the wrong kind of input.
        const asObject = form === 'object' && typeof value === 'object' && value !== null;
        const body = asObject ? value : form === 'bytes' ? encoder.encode(text) : text;
        const result = await outcome(body);
        if (taskLike(result)) {
          expect(typeof result.task_id).toBe('string');
          expect(result.task_id.length).toBeGreaterThan(0);
          expect(typeof result.status).toBe('string');
          assertPlainData(result);
        } else {
          // Valid JSON, well under the cap: it can only be refused for its shape.
          expect(result.reason).toBe('invalid_shape');
        }
        assertUnpolluted();
      }),
      settings,
    );
  });

  it('every well-formed task parses, and round-trips to the same data', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(taskArb, fc.constantFrom('text', 'bytes', 'object', 'request'), async (task, form) => {
        const text = JSON.stringify(task);
        const body =
          form === 'text' ? text : form === 'bytes' ? encoder.encode(text) : form === 'object' ? task : new Request('http://127.0.0.1/cb', { method: 'POST', body: text });
        const result = await outcome(body);
        expect(result).not.toBeInstanceOf(CallbackError);
        // The copy is exact but for `__proto__` keys, which are dropped (an object keeps -0),
        // and known fields that are null, which read as absent.
        expect(result).toStrictEqual(withoutKnownNulls(withoutProtoKeys(form === 'object' ? task : JSON.parse(text))));
      }),
      settings,
    );
  });

  it('random bytes: invalid UTF-8 is invalid_json; nothing else escapes', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        const result = await outcome(bytes);
        let validUtf8 = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        } catch {
          validUtf8 = false;
        }
        if (!validUtf8) expect((result as CallbackError).reason).toBe('invalid_json');
      }),
      settings,
    );
  });

  it('random text: a task only if it is a JSON task, else a CallbackError', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.json()), async (text) => {
        const result = await outcome(text);
        let parsed: unknown;
        let isJson = true;
        try {
          parsed = JSON.parse(text);
        } catch {
          isJson = false;
        }
        if (!isJson) expect((result as CallbackError).reason).toBe('invalid_json');
        else if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) expect((result as CallbackError).reason).toBe('invalid_shape');
      }),
      settings,
    );
  });

  it('every truncation of a task is invalid_json', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(
        taskArb.chain((task) => {
          const text = JSON.stringify(task);
          return fc.tuple(fc.constant(text), fc.integer({ min: 0, max: text.length - 1 }));
        }),
        async ([text, cut]) => {
          const result = await outcome(text.slice(0, cut));
          expect((result as CallbackError).reason).toBe('invalid_json');
        },
      ),
      settings,
    );
  });

  it('size: too_large exactly when the UTF-8 body exceeds maxBytes, for text, bytes and Request', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 40, max: 4096 }),
        fc.integer({ min: -64, max: 64 }),
        fc.constantFrom('a', 'é', '€', '😀'),
        fc.constantFrom('text', 'bytes', 'request'),
        async (maxBytes, delta, unit, form) => {
          const head = '{"task_id":"t","status":"completed","pad":"';
          const target = Math.max(head.length + 2, maxBytes + delta);
          // The largest pad of whole units whose body fits in `target` bytes.
          const unitBytes = encoder.encode(unit).byteLength;
          const pad = unit.repeat(Math.max(0, Math.floor((target - head.length - 2) / unitBytes)));
          const text = head + pad + '"}';
          const size = encoder.encode(text).byteLength;
          const body = form === 'text' ? text : form === 'bytes' ? encoder.encode(text) : new Request('http://127.0.0.1/cb', { method: 'POST', body: text });
          const result = await outcome(body, { maxBytes });
          if (size > maxBytes) expect((result as CallbackError).reason).toBe('too_large');
          else expect((result as TaskResult).task_id).toBe('t');
        },
      ),
      { ...settings, numRuns: Math.max(50, Math.floor(RUNS / 4)) },
    );
  });

  it('huge strings are too_large past 1 MiB and parsed (then refused as JSON) up to it', { timeout: TIMEOUT }, async () => {
    const MiB = 1024 * 1024;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -64, max: 64 }), fc.constantFrom('x', '{', '"'), async (delta, fill) => {
        const result = await outcome(fill.repeat(MiB + delta));
        expect((result as CallbackError).reason).toBe(delta > 0 ? 'too_large' : 'invalid_json');
      }),
      { ...settings, numRuns: Math.min(RUNS, 200) },
    );
  });

  it('deep nesting: accepted up to the bound, invalid_shape past it, never a stack overflow', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2000 }), fc.constantFrom('[', '{"k":'), fc.constantFrom('text', 'object'), async (depth, open, form) => {
        const close = open === '[' ? ']' : '}';
        const text = `{"task_id":"t","status":"completed","x":${open.repeat(depth)}1${close.repeat(depth)}}`;
        const result = await outcome(form === 'text' ? text : JSON.parse(text));
        // The root is level 0, x level 1, the innermost value level depth + 1; the bound is 64.
        if (depth + 1 > 64) expect((result as CallbackError).reason).toBe('invalid_shape');
        else expect((result as TaskResult).task_id).toBe('t');
      }),
      settings,
    );
  });

  it('__proto__, constructor and prototype keys anywhere change no prototype', { timeout: TIMEOUT }, async () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'polluted'), fc.string({ maxLength: 8 }));
    // Objects are written as JSON text by hand, so a key may repeat and `__proto__` stays a key.
    class Obj {
      constructor(readonly pairs: [string, unknown][]) {}
    }
    const text = (node: unknown): string =>
      node instanceof Obj
        ? `{${node.pairs.map(([k, v]) => `${JSON.stringify(k)}:${text(v)}`).join(',')}}`
        : Array.isArray(node)
          ? `[${node.map(text).join(',')}]`
          : JSON.stringify(node);
    const hostile = fc.letrec<{ value: unknown; object: Obj }>((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), tie('object'), fc.array(tie('value'), { maxLength: 3 })),
      object: fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map((pairs) => new Obj(pairs)),
    }));
    await fc.assert(
      fc.asyncProperty(hostile.object.map(text), fc.constantFrom('text', 'object'), async (inner, form) => {
        const body_ = `{"task_id":"t","status":"completed","__proto__":${inner},"x":${inner},"data":[{"url":"u","__proto__":${inner}}]}`;
        let body: unknown = body_;
        if (form === 'object') body = JSON.parse(body_); // own __proto__ keys, as a framework's JSON.parse leaves them
        const result = await outcome(body);
        if (taskLike(result)) {
          assertPlainData(result);
          expect(Object.getPrototypeOf(Object.assign({}, result))).toBe(Object.prototype);
        }
        assertUnpolluted();
      }),
      settings,
    );
  });

  it('a wrong type in task_id or status is invalid_shape; in any other field it is read as its type or left out, never handed on', { timeout: TIMEOUT }, async () => {
    const fields = TASK_FIELD_TYPES;
    const wrongFor = (type: string) =>
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }), fc.array(fc.integer(), { maxLength: 2 })).filter(
        (v) => (type === 'array' ? !Array.isArray(v) : typeof v !== type),
      );
    await fc.assert(
      fc.asyncProperty(
        taskArb,
        fc.constantFrom(...(Object.keys(fields) as (keyof typeof fields)[])).chain((field) =>
          fc.tuple(fc.constant(field), fc.oneof(wrongFor(fields[field]), fc.constant(null))),
        ),
        async (task, [field, value]) => {
          const result = await outcome({ ...task, [field]: value });
          if (field === 'task_id' && Number.isSafeInteger(value)) expect((result as TaskResult).task_id).toBe(String(value));
          else if (field === 'task_id' || field === 'status') {
            expect((result as CallbackError).reason).toBe('invalid_shape');
            expect((result as CallbackError).message).toContain(field);
          } else {
            const read = result as TaskResult;
            expect(read.task_id).toBe(task.task_id);
            const got = (read as unknown as Record<string, unknown>)[field];
            if (got !== undefined) expect(typeName(got)).toBe(fields[field]);
            // `__proto__` keys are dropped on reading (internal/plain-data.ts): JSON.parse makes them own keys.
            const asSent = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).filter(([key]) => key !== '__proto__')) : value;
            if (value !== null) expect((rawAnswer(read) as Record<string, unknown>)[field]).toEqual(asSent);
          }
        },
      ),
      settings,
    );
  });
  it('a task_id the task id rule refuses is invalid_shape naming task_id, never a URIError later', { timeout: TIMEOUT }, async () => {
    const badId = fc.oneof(
      fc.constantFrom('', '.', '..', 'x'.repeat(513)),
      fc.tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 8 })).map(
        ([a, unit, b]) => `${a}${String.fromCharCode(unit)}${b}`,
      ),
    ).filter((id) => taskIdProblem(id) !== undefined);
    await fc.assert(
      fc.asyncProperty(taskArb, badId, fc.constantFrom('text', 'object'), async (task, id, form) => {
        const body = { ...task, task_id: id };
        const result = await outcome(form === 'text' ? JSON.stringify(body) : body);
        expect((result as CallbackError).reason).toBe('invalid_shape');
        expect((result as CallbackError).message).toContain('task_id');
      }),
      settings,
    );
  });
});
