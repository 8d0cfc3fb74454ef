// The property tests of the public entries (issue 30): any value in any field of params and
// options, and any answer a server may give, ends in a result or an OmniMediaError: never a raw
// error, a hang past the deadline, or an error without the task id once a submission was
// accepted. The service is a scripted `fetch` (no socket: thousands of exchanges in seconds) on
// fake time. `FUZZ_RUNS` sets the runs per property (the default keeps a file to a few seconds).
import fc from 'fast-check';
import { afterAll, expect, vi } from 'vitest';
import { OmniMediaError } from 'omnimedia';
import { settle } from './clock.ts';

export const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** fast-check's settings for one property: `numRuns` from FUZZ_RUNS, the seed from FUZZ_SEED. */
export const runs = (numRuns = RUNS) => ({ numRuns, ...(SEED === undefined ? {} : { seed: SEED }) });
/** A test's own time limit (real time), by its runs. */
export const TEST_TIMEOUT = Math.max(90_000, RUNS * 1_500);

export const ID = 'task_prop';
export const BASE_URL = 'https://api.prop.test';
export const FILE_URL = 'https://files.prop.test/out/0.png';
export const PNG = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));

// ---------------------------------------------------------------------------------------------
// Caller input: any value, hostile ones included.

const boom = () => {
  throw new Error('boom');
};
/** Every trap throws. */
const hostileHandler: ProxyHandler<object> = {
  get: boom,
  has: boom,
  ownKeys: boom,
  getOwnPropertyDescriptor: boom,
  getPrototypeOf: boom,
  set: boom,
  defineProperty: boom,
  deleteProperty: boom,
  apply: boom,
  construct: boom,
  isExtensible: boom,
  preventExtensions: boom,
  setPrototypeOf: boom,
};

/** A file object: the PNG's bytes, fresh. */
const pngBytes = () => PNG.slice();
/** A file object: a Blob of the PNG. */
const pngBlob = () => new Blob([PNG]);

/** Values no plain-data reader may trust: each one a fresh instance (a stream reads once). */
const HOSTILE: (() => unknown)[] = [
  () => Object.defineProperty({}, 'x', { enumerable: true, get: boom }),
  () => new Proxy({}, hostileHandler),
  () => new Proxy([], hostileHandler),
  () => new Proxy(() => {}, hostileHandler),
  () => new Proxy({ a: 1 }, { get: boom }),
  () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  },
  () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    return cycle;
  },
  () => {
    const cycle: unknown[] = [];
    cycle.push([cycle]);
    return cycle;
  },
  () => 10n,
  () => Symbol('s'),
  () => () => 'a function',
  () => boom,
  () => async () => 'an async function',
  () => new (class Thing {
    x = 1;
  })(),
  () => new Date(Number.NaN),
  () => new Map([[1, 2]]),
  () => /regexp/,
  () => new Error('an error'),
  () => Promise.resolve(1),
  () => new Uint8Array([1, 2, 3]),
  pngBytes,
  pngBlob,
  () => new Blob(['not an image']),
  () => new ReadableStream({ start: (c) => (c.enqueue(PNG.slice()), c.close()) }),
  () => new ReadableStream({ pull: boom }),
  () => new ReadableStream({ start: (c) => (c.enqueue('text, not bytes' as never), c.close()) }),
  () => new Response(PNG.slice()),
  () => new AbortController().signal,
  () => ({ toJSON: boom }),
  () => ({ toString: boom, valueOf: boom }),
  () => ({ then: (resolve: (v: unknown) => void) => resolve(1) }),
  () => {
    // A different value at every read: checked once, sent once, the same.
    let reads = 0;
    return Object.defineProperty({}, 'prompt', { enumerable: true, get: () => (reads++ === 0 ? 'fine' : 'x'.repeat(5000)) });
  },
  () => JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown,
  () => Object.assign(Object.create(null) as object, { a: 1 }),
  () => Object.freeze({ model: 'frozen' }),
  () => 'x'.repeat(5000),
  () => '\uD800 lone surrogate',
  () => 'nul\u0000byte',
  () => '../../../etc/passwd',
  () => 'https://user:pass@files.prop.test/x.png',
  () => `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`,
  () => -0,
  () => Number.NaN,
  () => Number.POSITIVE_INFINITY,
  () => 2 ** 53 + 1,
  () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = { deep };
    return deep;
  },
  () => {
    const sparse: unknown[] = [];
    sparse[5] = 'x';
    return sparse;
  },
];

/**
 * Where a hostile value goes: fast-check itself looks into the values it generates (a clone
 * check, the counterexample's text), which a revoked Proxy or a throwing getter would break;
 * the property makes the value from its recipe (`realize`).
 */
export class Hostile {
  constructor(readonly index: number) {}
  toString(): string {
    return `Hostile(${String(HOSTILE[this.index]).slice(6, 90)})`;
  }
}

/** A file object as a recipe (see `Hostile`): bytes or a Blob of a PNG. */
export const fileObject = (kind: 'bytes' | 'blob') => new Hostile(HOSTILE.indexOf(kind === 'bytes' ? pngBytes : pngBlob));

/** `value` with every `Hostile` in it (in plain objects and arrays) made into its value, fresh. */
export function realize<T = unknown>(value: unknown): T {
  if (value instanceof Hostile) return HOSTILE[value.index]!() as T;
  if (Array.isArray(value)) return value.map(realize) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) put(out, key, realize((value as Record<string, unknown>)[key]));
    return out as T;
  }
  return value as T;
}

/** Any value a caller may pass: fast-check's `anything` (BigInt, Map, typed arrays, null prototypes...) and the hostile ones above (as recipes: see `realize`). */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.anything({ maxDepth: 2, maxKeys: 4, withBigInt: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withTypedArray: true, withUnicodeString: true }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: HOSTILE.length - 1 }).map((i) => new Hostile(i)) },
);

/** Define `key` as an own, enumerable property (`__proto__` included) of `target`. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * `base` (valid input) as a caller may mangle it: about half the runs leave it as it is, most
 * others change one or two fields (a field replaced by any value, dropped, or an extra one
 * added), some replace the whole.
 */
export function mangled(base: Record<string, unknown>, extraKeys: readonly string[] = [], kept: readonly string[] = []): fc.Arbitrary<unknown> {
  const keys = [...Object.keys(base), ...extraKeys, 'extra', '__proto__'];
  const edited = fc
    .record({
      // `kept`: never dropped (a wait's `timeout`: without it, the default deadline of 30 minutes makes a run slow, not different).
      drop: fc.subarray(Object.keys(base).filter((key) => !kept.includes(key)), { maxLength: 1 }),
      replace: fc.array(fc.tuple(fc.constantFrom(...keys), anyValue), { maxLength: 2 }),
    })
    .map(({ drop, replace }) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(base)) if (!drop.includes(key)) put(out, key, value);
      for (const [key, value] of replace) put(out, key, value);
      return out;
    });
  // Valid as given in about half the runs, so that most runs reach the service's answers too.
  return fc.oneof({ weight: 8, arbitrary: fc.constant(base) }, { weight: 6, arbitrary: edited }, { weight: 1, arbitrary: anyValue }, { weight: 1, arbitrary: fc.constant(undefined) });
}

/**
 * Options as a caller may give them: valid ones with a deadline (so a run ends in fake time),
 * mangled, or anything. `deadline`: the option bounding the call (`timeout`).
 */
export function options(base: Record<string, unknown> = {}, extraKeys: readonly string[] = []): fc.Arbitrary<unknown> {
  return mangled({ timeout: 5_000, maxRetries: 1, ...base }, ['signal', 'onProgress', 'idleTimeout', ...extraKeys]);
}

// ---------------------------------------------------------------------------------------------
// The service: any answer.

export interface Answer {
  status: number;
  body: string | Uint8Array;
  headers: Record<string, string>;
  /** Instead of an answer: fetch fails (a network error), or never answers (until aborted). */
  fails?: 'network' | 'hang';
}

const STATUS = fc.constantFrom(200, 200, 200, 201, 202, 204, 302, 400, 401, 402, 403, 404, 409, 413, 429, 500, 502, 503, 504);
const RESULT_URL = fc.constantFrom(FILE_URL, '/relative/0.png', 'https://user:pass@files.prop.test/0.png', 'data:image/png;base64,iVBORw0KGgo=', 'not a url', 'ftp://files.prop.test/0.png', `${FILE_URL}?X-Amz-Signature=abc`);
const anyJson = fc.anything({ maxDepth: 2, maxKeys: 3, withNullPrototype: false, withBigInt: false, withDate: false, withMap: false, withSet: false, withTypedArray: false, withBoxedValues: false, withSparseArray: false });

/** A field of a task: usually well-formed, sometimes anything JSON can hold. */
const orJunk = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: anyJson });

/** A task (or submission, or upload record) as the service may write it: the id given, every field possibly odd. */
export function taskBody(id = ID): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      task_id: fc.oneof({ weight: 8, arbitrary: fc.constant(id) }, { weight: 1, arbitrary: fc.constantFrom('', 'other_task', '..', 'x'.repeat(600)) }, { weight: 1, arbitrary: anyJson }),
      status: orJunk(fc.constantFrom('pending', 'processing', 'completed', 'completed', 'failed', 'succeeded', 'cancelled', 'in_progress')),
      model: orJunk(fc.constantFrom('omni-image', 'omni_flash')),
      created_at: orJunk(fc.constantFrom(1_700_000_000, 1_700_000_000_000, -1, 1e308)),
      data: orJunk(fc.array(fc.record({ url: orJunk(RESULT_URL) }), { maxLength: 3 })),
      attempts: orJunk(fc.array(fc.record({ attempt_no: orJunk(fc.nat()), status: orJunk(fc.constantFrom('failed', 'completed')), fail_reason: orJunk(fc.string()) }), { maxLength: 2 })),
      fail_reason: orJunk(fc.string()),
      total_cost: orJunk(fc.nat()),
      url: orJunk(RESULT_URL),
      upload_id: orJunk(fc.string()),
      expires_at: orJunk(fc.constantFrom(4_000_000_000, 1, 4_000_000_000_000)),
      width: orJunk(fc.nat()),
      extra: anyJson,
    },
    { requiredKeys: ['task_id'] },
  );
}

const BODY = (id: string) =>
  fc.oneof(
    { weight: 6, arbitrary: taskBody(id).map((task) => JSON.stringify(task)) },
    { weight: 1, arbitrary: anyJson.map((value) => JSON.stringify(value) ?? '') },
    { weight: 1, arbitrary: fc.constantFrom('', 'not json', '<html>502 Bad Gateway</html>', '{"task_id":', `{"task_id":"${id}","status":"completed","x":${'['.repeat(100)}${']'.repeat(100)}}`) },
    { weight: 1, arbitrary: fc.constant(new Uint8Array([0xff, 0xfe, 0x00, 0x7b])) },
  );

const HEADERS = fc.record(
  {
    'content-type': fc.constantFrom('application/json', 'text/html', 'image/png', 'application/octet-stream'),
    'retry-after': fc.constantFrom('0', '1', '-1', '3600', 'soon', 'Wed, 21 Oct 2015 07:28:00 GMT'),
    'content-length': fc.constantFrom('0', '5', '99999999', 'abc'),
    location: fc.constantFrom('https://elsewhere.prop.test/', '/v1/tasks/other'),
  },
  { requiredKeys: [] },
);

/** One answer of the service to a request whose task is `id`. */
export function answer(id = ID): fc.Arbitrary<Answer> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.record({ status: STATUS, body: BODY(id), headers: HEADERS }) },
    { weight: 1, arbitrary: fc.constant({ status: 0, body: '', headers: {}, fails: 'network' as const }) },
    { weight: 1, arbitrary: fc.constant({ status: 0, body: '', headers: {}, fails: 'hang' as const }) },
  );
}

/** A result file's answer: the bytes, or any answer. */
export const fileAnswer: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ status: 200, body: PNG, headers: { 'content-type': 'image/png' } }) },
  { weight: 2, arbitrary: answer() },
);

/** The answers of one run, per kind of request, in order (the last one repeats). */
export interface Script {
  submissions: Answer[];
  uploads: Answer[];
  queries: Answer[];
  files: Answer[];
}

export const script: fc.Arbitrary<Script> = fc.record({
  submissions: fc.array(answer(), { minLength: 1, maxLength: 3 }),
  uploads: fc.array(answer('up'), { minLength: 1, maxLength: 2 }),
  queries: fc.array(answer(), { minLength: 1, maxLength: 4 }),
  files: fc.array(fileAnswer, { minLength: 1, maxLength: 2 }),
});

/**
 * A `fetch` that answers from a script, and remembers the task a submission's 2xx answer
 * named: from then on every error must carry its id.
 */
export class ScriptedService {
  script: Script = { submissions: [], uploads: [], queries: [], files: [] };
  /** The task id a 2xx answer to a submission named (a billed task, as far as the client can know). */
  accepted: string | undefined;
  requests = 0;
  readonly #served = { submissions: 0, uploads: 0, queries: 0, files: 0 };

  reset(next: Script): void {
    this.script = next;
    this.accepted = undefined;
    this.requests = 0;
    for (const key of Object.keys(this.#served) as (keyof Script)[]) this.#served[key] = 0;
  }

  readonly fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    this.requests++;
    const url = String(input instanceof Request ? input.url : input);
    const method = init?.method ?? 'GET';
    // The SDK's own request body is always readable: a stream is drained as a server would.
    if (init?.body instanceof ReadableStream) await new Response(init.body).arrayBuffer().catch(() => {});
    const kind: keyof Script = !url.startsWith(BASE_URL) ? 'files' : url.includes('/v1/uploads/') ? 'uploads' : method === 'POST' ? 'submissions' : 'queries';
    const list = this.script[kind];
    const next = list[Math.min(this.#served[kind]++, list.length - 1)]!;
    if (next.fails === 'network') throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    if (next.fails === 'hang')
      return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }));
    const body = typeof next.body === 'string' ? new TextEncoder().encode(next.body) : next.body;
    const declared = next.headers['content-length'];
    const noBody = [204, 205, 304].includes(next.status);
    // A body the client reads whole (no length declared, or the true one): its task id is one the client can know.
    if (kind === 'submissions' && !noBody && next.status >= 200 && next.status < 300 && (declared === undefined || Number(declared) === body.byteLength)) {
      try {
        const named = (JSON.parse(typeof next.body === 'string' ? next.body : '') as { task_id?: unknown }).task_id;
        if (typeof named === 'string' && named) this.accepted = named;
      } catch {
        // Not JSON: no task the client could know of.
      }
    }
    return new Response(noBody ? null : (next.body as BodyInit), { status: next.status, headers: next.headers });
  };
}

/** `value.signal`, read as the SDK would not trust it: `undefined` when reading it throws. */
export function signalOf(value: unknown): unknown {
  try {
    return (value as { signal?: unknown } | null | undefined)?.signal;
  } catch {
    return undefined;
  }
}

/** Past every deadline the SDK sets by default (a video's wait: 30 minutes), with its retries: a call still pending is a hang. */
const HANG_MS = 45 * 60_000;

class Hang extends Error {}

/**
 * Let `promise` settle while fake time runs: 1 s steps for the first 2 minutes (requests and
 * retries), then 30 s steps up to `ms` (the default deadlines of waits and uploads), real I/O
 * settling before each step.
 */
async function inFakeTime<T>(promise: PromiseLike<T>, ms: number): Promise<T> {
  let done = false;
  const settled = Promise.resolve(promise).finally(() => (done = true));
  settled.catch(() => {});
  for (let t = 0; t < ms && !done; ) {
    await settle();
    if (done) break;
    const step = t < 120_000 ? 1_000 : 30_000;
    await vi.advanceTimersByTimeAsync(step);
    t += step;
  }
  // Real I/O (a file written, a Blob read) takes real time, which a loaded machine stretches:
  // fake time is over, but a hang is only a call still pending after 10 s of real time too.
  for (const started = performance.now(); !done && performance.now() - started < 10_000; ) {
    await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(30_000);
  }
  await settle();
  if (!done) throw new Hang(`a hang: still pending after ${ms / 60_000} minutes of fake time and 10 s of real time`);
  return settled;
}

/** How runs ended, by error class (`value` for a result): printed with FUZZ_RUNS, to see that the runs reach far. */
export const tally: Record<string, number> = {};
afterAll(() => {
  if (process.env.FUZZ_RUNS) console.log(`outcomes: ${JSON.stringify(tally)}`);
});

/** `signal` is an aborted AbortSignal whose reason is `error` (checked without trusting it). */
function isAbortedWith(signal: unknown, error: unknown): boolean {
  try {
    return signal instanceof AbortSignal && signal.aborted && error === signal.reason;
  } catch {
    return false;
  }
}

/** The outcome of one call: its value, or the OmniMediaError it threw. */
export type Outcome = { value: unknown } | { error: OmniMediaError };

/**
 * Run `call` on fake time (up to `ms`) and check what it ended in: a value, or an
 * `OmniMediaError` (carrying `taskId` when `accepted()` names a task by then). The one
 * exception, documented: an aborted signal's own reason. Anything else, or still pending after
 * `ms` of fake time (every run's deadline is shorter), fails the property.
 */
export async function outcome(call: () => PromiseLike<unknown>, check: { accepted?: () => string | undefined; signal?: unknown; ms?: number } = {}): Promise<Outcome> {
  let started: PromiseLike<unknown>;
  try {
    started = call();
  } catch (error) {
    // A synchronous throw is an outcome too (a constructor, a handler factory).
    started = Promise.reject(error);
  }
  try {
    const value = await inFakeTime(started, check.ms ?? HANG_MS);
    tally.value = (tally.value ?? 0) + 1;
    return { value };
  } catch (error) {
    if (error instanceof Hang) throw error;
    const name = (error as Error | undefined)?.name ?? typeof error;
    tally[name] = (tally[name] ?? 0) + 1;
    if (isAbortedWith(check.signal, error)) return { error: new OmniMediaError('aborted by the caller') };
    if (!(error instanceof OmniMediaError)) throw new Error(`a raw error left the SDK: ${(error as Error | undefined)?.name}: ${String((error as Error | undefined)?.message ?? error)}`, { cause: error });
    const accepted = check.accepted?.();
    if (accepted !== undefined) expect(error.taskId, `${error.name}: ${error.message}`).toBe(accepted);
    return { error };
  }
}
