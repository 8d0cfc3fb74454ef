// tasks.retrieve, tasks.wait and tasks.watch under any id, options and answers
// (test/helpers/properties.ts): every error names the task asked for.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { TasksClient } from 'omnimedia/tasks';
import { anyValue, BASE_URL, ID, mangled, outcome, realize, runs, ScriptedService, script, signalOf, TEST_TIMEOUT } from '../helpers/properties.ts';

const service = new ScriptedService();
const client = new OmniMedia({ baseURL: BASE_URL, fetch: service.fetch, logLevel: 'off', maxRetries: 1 });
const keyless = new TasksClient({ baseURL: BASE_URL, fetch: service.fetch, logLevel: 'off', maxRetries: 1 });
const WAIT = { timeout: 3_000, initialDelay: 0, interval: 1_000, maxInterval: 2_000 };

beforeEach(() => void vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] }));
afterEach(() => void vi.useRealTimers());

const taskId = fc.oneof({ weight: 4, arbitrary: fc.constant(ID) }, { weight: 1, arbitrary: anyValue });

/** Every item a watch yields, then how it ended. */
async function watched(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const task of iterable) seen.push(task);
  return seen;
}

describe('tasks: any id, any options, any answer, an OmniMediaError carrying the id, or the task', () => {
  it.each([
    ['tasks.retrieve', (c: typeof client | typeof keyless, id: unknown, o: unknown) => (c instanceof TasksClient ? c : c.tasks).retrieve(id as string, o as never)],
    ['tasks.wait', (c: typeof client | typeof keyless, id: unknown, o: unknown) => (c instanceof TasksClient ? c : c.tasks).wait(id as string, o as never)],
    ['tasks.watch', (c: typeof client | typeof keyless, id: unknown, o: unknown) => watched((c instanceof TasksClient ? c : c.tasks).watch(id as string, o as never))],
  ] as const)('%s (OmniMedia and TasksClient)', async (_name, call) => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), taskId, mangled(WAIT, [], ['timeout']), script, async (useKeyless, idRecipe, optionsRecipe, answers) => {
        service.reset(answers);
        const id = realize(idRecipe);
        const opts = realize(optionsRecipe);
        const result = await outcome(() => call(useKeyless ? keyless : client, id, opts), { signal: signalOf(opts) });
        // Once the id passed the rule, every error is about that task.
        if ('error' in result && id === ID && result.error.name !== 'OmniMediaError') expect(result.error.taskId, result.error.message).toBe(ID);
      }),
      runs(),
    );
  }, TEST_TIMEOUT);
});
