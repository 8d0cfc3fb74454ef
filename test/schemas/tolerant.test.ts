// Answers with known fields of unexpected types (the spec gives types from samples only), from
// the mock service with its answers rewritten on the way: several fields, several types, in
// task answers, submission answers and callbacks. Each is read where it can be without loss,
// else left out, never handed back as the wrong type; the raw answer stays reachable; one
// warning per field and kind; a wait ends with the task; a task id is never lost.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APIError, OmniMedia, type Logger, type TaskResult } from 'omnimedia';
import { rawAnswer } from 'omnimedia/schemas';
import { createMockService } from 'omnimedia/testing';
import { ATTEMPT_FIELD_TYPES, TASK_FIELD_TYPES, typeName } from '../helpers/task-fields.ts';

const CREATED_ISO = '2025-03-04T05:06:07.500Z';
const CREATED_S = Date.parse(CREATED_ISO) / 1000;

/** What the answers of one path get rewritten with (a function of the answer as the mock sent it). */
type Rewrite = (body: Record<string, unknown>) => Record<string, unknown>;

function setup(rewrites: { submission?: Rewrite; task?: Rewrite }) {
  const mock = createMockService({ baseURL: 'https://api.odd.test' });
  const warnings: string[] = [];
  const logger: Logger = { error() {}, info() {}, debug() {}, warn: (message: string) => void warnings.push(message) };
  const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const response = await mock.handle(new Request(input, init));
    const path = new URL(String(input instanceof Request ? input.url : input)).pathname;
    const rewrite = path.startsWith('/v1/tasks/') ? rewrites.task : path.startsWith('/v1/uploads/') ? undefined : rewrites.submission;
    if (!rewrite || !response.ok) return response;
    return Response.json(rewrite((await response.json()) as Record<string, unknown>), { status: response.status });
  };
  const client = new OmniMedia({ apiKey: 'sk-odd-0123456789abcdef', baseURL: mock.baseURL, fetch, logger });
  return { mock, client, warnings };
}

/** Every known field of a task is absent or of its declared type. */
function expectTypedTruthfully(task: TaskResult): void {
  for (const [field, type] of Object.entries(TASK_FIELD_TYPES)) if (field in task) expect(typeName((task as unknown as Record<string, unknown>)[field]), field).toBe(type);
  for (const output of task.data ?? []) expect(typeof output.url).toBe('string');
  for (const attempt of task.attempts ?? [])
    for (const [field, type] of Object.entries(ATTEMPT_FIELD_TYPES))
      if (field in attempt) expect(typeof (attempt as Record<string, unknown>)[field], `attempts[].${field}`).toBe(type);
}

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('a task answer with odd field types', () => {
  const odd: Rewrite = (task) =>
    task.status === 'completed'
      ? {
          ...task,
          total_cost: '0.25', // a numeric string: read as a number
          created_at: CREATED_ISO, // an ISO date-time with its offset: read as epoch seconds
          completed_at: '2025-03-04 05:06', // no offset: which instant is unknown, left out
          elapsed_s: true, // left out
          model: 42, // a number where a string goes: its decimal string
          provider: { name: 'p' }, // left out
          attempt_count: '12345678901234567890', // an integer past 2^53: left out
          attempts: [{ attempt_no: '1', status: 'completed', elapsed_s: 'fast', provider: null }, 'garbage'],
          data: [{ url: 7 }, ...(task.data as unknown[])],
        }
      : task;

  it('tasks.wait ends with the task (was a WaitTimeoutError after polling to the deadline), typed truthfully', async () => {
    const { client, warnings } = setup({ task: odd });
    const waiting = client.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait({ timeout: 60_000 });
    await vi.advanceTimersByTimeAsync(20_000);
    const task = await waiting;
    expect(task).toMatchObject({ status: 'completed', total_cost: 0.25, created_at: CREATED_S, model: '42' });
    for (const field of ['completed_at', 'elapsed_s', 'provider', 'attempt_count']) expect(task).not.toHaveProperty(field);
    expect(task.attempts).toEqual([{ attempt_no: 1, status: 'completed' }]);
    expect(task.data).toHaveLength(1); // the output without a url left out, the real one kept
    expectTypedTruthfully(task);
    // The raw answer, as sent, stays reachable.
    expect(rawAnswer(task)).toMatchObject({ total_cost: '0.25', elapsed_s: true, provider: { name: 'p' }, data: [{ url: 7 }, expect.anything()] });
    expect(Object.keys(task)).not.toContain('raw'); // not an enumerable field: JSON and spreads are unchanged
    // One warning per field and kind, naming both.
    expect(warnings.some((w) => w.includes('total_cost was "0.25": read as 0.25'))).toBe(true);
    expect(warnings.some((w) => w.includes('completed_at') && w.includes('left out'))).toBe(true);
    expect(warnings.some((w) => w.includes('data[].url') && w.includes('left out'))).toBe(true);
    const count = warnings.length;
    await client.tasks.retrieve(task.task_id);
    expect(warnings.length).toBe(count); // the same fields again: no more warnings
  });
});

describe('times in another unit (one reading: schemas/time.ts)', () => {
  it('ms, µs, ns and decimal strings read as epoch seconds (ms were kept as sent: year 58877 for a reader of seconds), said once', async () => {
    const { client, warnings } = setup({
      task: (task) => ({ ...task, created_at: CREATED_S * 1000, completed_at: String(CREATED_S * 1e6) }),
      submission: (body) => ({ ...body, created_at: CREATED_S * 1e9 }),
    });
    const pending = client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    expect((await pending).created_at).toBeCloseTo(CREATED_S, 3);
    const waiting = pending.wait({ timeout: 60_000 });
    await vi.advanceTimersByTimeAsync(20_000);
    const task = await waiting;
    expect(task.created_at).toBe(CREATED_S);
    expect(task.completed_at).toBeCloseTo(CREATED_S, 6);
    expect(rawAnswer(task)).toMatchObject({ created_at: CREATED_S * 1000 });
    // Said once per field and kind: the submission's ns said it for the task's ms too.
    expect(warnings).toContainEqual(expect.stringContaining(`created_at was ${CREATED_S * 1e9}: read as ${CREATED_S}`));
    expect(warnings).toContainEqual(expect.stringContaining(`completed_at was "${CREATED_S * 1e6}": read as`));
    expectTypedTruthfully(task);
  });

  it('a number that is no time (past 10^20) is left out; seconds are kept as sent, without a warning', async () => {
    const { client, warnings } = setup({ task: (task) => ({ ...task, created_at: 1e21, completed_at: 1_800_000_000 }) });
    const waiting = client.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait({ timeout: 60_000 });
    await vi.advanceTimersByTimeAsync(20_000);
    const task = await waiting;
    expect(task).not.toHaveProperty('created_at');
    expect(task.completed_at).toBe(1_800_000_000);
    expect(warnings.some((w) => w.includes('created_at') && w.includes('left out'))).toBe(true);
    expect(warnings.some((w) => w.includes('completed_at'))).toBe(false);
  });
});

describe('a submission answer with odd field types', () => {
  it('a 202 with an ISO created_at resolves with the task id (was an APIError without it, and no journal entry)', async () => {
    const { client } = setup({ submission: (body) => ({ ...body, created_at: CREATED_ISO, normalized_model: ['x'], status: 3 }) });
    const submission = await client.videos.generate({ prompt: 'a paper boat' });
    expect(submission).toMatchObject({ status: 'pending', created_at: CREATED_S });
    expect(submission).not.toHaveProperty('normalized_model');
    expect((await client.journal.list()).map((e) => e.task_id)).toEqual([submission.task_id]);
  });

  it('a task id sent as a whole number reads as its string', async () => {
    const { client, mock } = setup({ submission: (body) => ({ ...body, task_id: 12345 }) });
    const submission = await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    expect(submission.task_id).toBe('12345');
    expect(mock.tasks()).toHaveLength(1);
  });

  it('a 2xx whose task_id breaks our rule: the APIError carries that task id, and the journal has it', async () => {
    const long = `task_${'x'.repeat(600)}`;
    const { client } = setup({ submission: (body) => ({ ...body, task_id: long }) });
    const error = await client.images.generate({ model: 'omni-image', prompt: 'a fox' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).taskId).toBe(long);
    expect((error as APIError).message).toMatch(/task_id: must be at most 512 characters/);
    expect((await client.journal.list()).map((e) => e.task_id)).toEqual([long]);
  });
});

describe('a callback with odd field types', () => {
  it('is handled (was 400 invalid_shape): onTask gets the task typed truthfully', async () => {
    const { client, mock, warnings } = setup({});
    const submission = await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    await vi.advanceTimersByTimeAsync(20_000);
    const sent = { ...(mock.task(submission.task_id) as Record<string, unknown>), total_cost: '6', created_at: CREATED_ISO, elapsed_s: [1] };
    const seen: TaskResult[] = [];
    const handle = client.callbacks.handler((task) => void seen.push(task), { verify: false });
    const answer = await handle(new Request('https://me.test/hook', { method: 'POST', body: JSON.stringify(sent) }));
    expect(answer.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ total_cost: 6, created_at: CREATED_S });
    expect(seen[0]).not.toHaveProperty('elapsed_s');
    expectTypedTruthfully(seen[0] as TaskResult);
    expect(rawAnswer(seen[0] as TaskResult)).toMatchObject({ elapsed_s: [1] });
    expect(warnings.some((w) => w.includes(`callback for task ${submission.task_id}: elapsed_s was [1]: left out`))).toBe(true);
  });
});

describe('an answer a wait cannot use at all (no status)', () => {
  it('is said at the default level once, and the time-out carries it as its cause', async () => {
    const { client, warnings } = setup({ task: ({ status: _status, ...rest }) => rest });
    const waiting = client.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait({ timeout: 30_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(31_000);
    const error = await waiting;
    expect((error as Error).name).toBe('WaitTimeoutError');
    expect((error as Error).cause).toBeInstanceOf(APIError);
    expect(((error as Error).cause as Error).message).toMatch(/status: is required/);
    const said = warnings.filter((w) => /could not use the answer/.test(w));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/status: is required.*retried until the deadline/);
  });
});
