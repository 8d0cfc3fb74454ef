// Property tests of the task query: whatever the service answers, `tasks.retrieve(id)` resolves
// with a task of that id made of plain data, or rejects with an OmniMediaError that carries the
// id; it never hangs. Eight kinds of answers, one property each, on a fetch stub (no socket).
// `npm test` runs a quick pass; `npm run fuzz` sets FUZZ_RUNS (12,500 per property: 100,000
// answers) and prints the totals.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { OmniMedia, OmniMediaError, type TaskResult } from 'omnimedia';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
// A hang guard (vitest.config.ts): CPU-bound, 31.5 s at a load of 25 for what takes 2 s idle.
const TIMEOUT = Math.max(60_000, RUNS * 60);
const settings = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };
/** A call still pending after this long (real time) is a hang: the property fails. */
const HANG_MS = 5_000;
const ID = 'task_fuzz';
let answers = 0;
const started = performance.now();

afterAll(() => {
  if (process.env.FUZZ_RUNS) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`fuzz: ${answers.toLocaleString('en-US')} task-query answers through tasks.retrieve in ${seconds} s`);
  }
});

interface Answer {
  status: number;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

let next: Answer = { status: 200, body: '{}' };
const client = new OmniMedia({
  baseURL: 'https://api.fuzz.test',
  maxRetries: 0,
  logLevel: 'off',
  fetch: async () => new Response(next.body as BodyInit, { status: next.status, headers: next.headers ?? { 'content-type': 'application/json' } }),
});

/** Every object in `value` is a plain object or array with no own `__proto__`. */
function isPlainData(value: unknown): boolean {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== Array.prototype) return false;
  if (Object.hasOwn(value, '__proto__')) return false;
  return Object.values(value).every(isPlainData);
}

const TYPES: Record<string, string> = { model: 'string', provider: 'string', elapsed_s: 'number', created_at: 'number', total_cost: 'number', status: 'string' };

/** Every known field is absent or of its declared type: an odd one was read as its type or left out. */
function expectTypedTruthfully(task: TaskResult): void {
  for (const [field, type] of Object.entries(TYPES)) if (field in task) expect(typeof (task as unknown as Record<string, unknown>)[field]).toBe(type);
  if ('data' in task) expect(Array.isArray(task.data) && task.data.every((d) => typeof d.url === 'string')).toBe(true);
  if ('attempts' in task) expect(Array.isArray(task.attempts) && task.attempts.every((a) => typeof a === 'object' && a !== null)).toBe(true);
}

/** Send `answer` to one `tasks.retrieve(ID)`: its task, or its OmniMediaError; anything else fails. */
async function retrieve(answer: Answer): Promise<TaskResult | OmniMediaError> {
  answers++;
  next = answer;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`tasks.retrieve hung on ${String(answer.body).slice(0, 200)}`)), HANG_MS)));
  try {
    const task = await Promise.race([client.tasks.retrieve(ID), hang]);
    expect(task.task_id).toBe(ID);
    expect(isPlainData(task)).toBe(true);
    expectTypedTruthfully(task);
    return task;
  } catch (error) {
    if (!(error instanceof OmniMediaError)) throw new Error(`tasks.retrieve threw ${(error as Error)?.name}: ${String(error)}`);
    expect(error.taskId).toBe(ID);
    return error;
  } finally {
    clearTimeout(timer);
  }
}

const json = (value: unknown): Answer => ({ status: 200, body: JSON.stringify(value) });

/** A task of the spec's shape (some unknown fields too) with the given id. */
const taskArb = (id: fc.Arbitrary<string>) =>
  fc.record(
    {
      task_id: id,
      status: fc.oneof(fc.constantFrom('pending', 'processing', 'completed', 'failed'), fc.string()),
      model: fc.oneof(fc.string(), fc.constant(null)),
      provider: fc.string(),
      elapsed_s: fc.integer(),
      created_at: fc.integer({ min: 0 }),
      data: fc.array(fc.record({ url: fc.webUrl() }), { maxLength: 4 }),
      attempts: fc.array(fc.record({ attempt_no: fc.nat(), status: fc.constantFrom('completed', 'failed'), fail_reason: fc.string() }), { maxLength: 3 }),
      extra: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: ['task_id', 'status'] },
  );

const HUGE_PAD = 'x'.repeat(1024 * 1024);

describe('tasks.retrieve: whatever the task query answers, a task of the id asked for or an OmniMediaError carrying it', () => {
  it('valid answers resolve with the task', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(taskArb(fc.constant(ID)), async (task) => {
        const result = await retrieve(json(task));
        expect(result).not.toBeInstanceOf(OmniMediaError);
      }),
      settings,
    );
  });

  it('another task_id is an error naming both ids', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(taskArb(fc.string({ minLength: 1, maxLength: 30 }).filter((id) => id !== ID)), async (task) => {
        const result = await retrieve(json(task));
        expect(result).toBeInstanceOf(OmniMediaError);
      }),
      settings,
    );
  });

  it('truncated answers are errors', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(taskArb(fc.constant(ID)), fc.double({ min: 0, max: 1, noNaN: true }), async (task, at) => {
        const text = JSON.stringify(task);
        const cut = Math.floor(text.length * at);
        const result = await retrieve({ status: 200, body: text.slice(0, cut) });
        if (cut < text.length) expect(result).toBeInstanceOf(OmniMediaError);
      }),
      settings,
    );
  });

  it('huge answers (over 1 MiB, declared or not) are errors', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.nat(1000), fc.constantFrom(200, 500, 503), async (declared, extra, status) => {
        const body = `{"task_id":"${ID}","status":"completed","pad":"${HUGE_PAD}${'y'.repeat(extra)}"}`;
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (declared) headers['content-length'] = String(body.length);
        const result = await retrieve({ status, body, headers });
        expect(result).toBeInstanceOf(OmniMediaError);
      }),
      settings,
    );
  });

  it('deep answers are errors past 64 levels, tasks below', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5_000 }), fc.constantFrom(['[', ']'], ['{"a":', '}']), async (depth, [open, close]) => {
        const body = `{"task_id":"${ID}","status":"completed","x":${open!.repeat(depth)}1${close!.repeat(depth)}}`;
        const result = await retrieve({ status: 200, body });
        if (depth > 63) expect(result).toBeInstanceOf(OmniMediaError);
        else expect(result).not.toBeInstanceOf(OmniMediaError);
      }),
      settings,
    );
  });

  it('wrong types in typed fields are read as their type or left out (a wrong task_id or status is an error); JSON that is no object is an error', { timeout: TIMEOUT }, async () => {
    const wrong = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }), fc.array(fc.integer(), { maxLength: 600 }));
    const field = fc.constantFrom('task_id', 'status', 'model', 'elapsed_s', 'created_at', 'data', 'attempts', 'total_cost');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(taskArb(fc.constant(ID)), field, wrong).map(([task, key, value]) => ({ ...task, [key]: value })),
          fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
          fc.integer({ min: 1, max: 200_000 }).map((n) => ({ task_id: ID, status: 'completed', data: Array(n).fill(1) })),
        ),
        async (value) => void (await retrieve(json(value))),
      ),
      settings,
    );
  });

  it('bytes that are no JSON (invalid UTF-8, HTML, empty) are errors', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.constantFrom('', '<html>proxy</html>', 'null', '\uFEFF{}'), fc.string({ maxLength: 100 })),
        fc.constantFrom(200, 201, 204, 299),
        async (body, status) => {
          // 204 can carry no body at all.
          const result = await retrieve({ status, body: status === 204 ? '' : body, headers: { 'content-type': 'text/html' } });
          expect(result).toBeInstanceOf(OmniMediaError);
        },
      ),
      settings,
    );
  });

  it('error statuses with any body are errors', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 300, max: 599 }).filter((s) => ![304].includes(s)),
        fc.oneof(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.string({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 })),
        async (status, body) => {
          const result = await retrieve({ status, body });
          expect(result).toBeInstanceOf(OmniMediaError);
        },
      ),
      settings,
    );
  });
});
