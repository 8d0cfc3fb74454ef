// files.download under any source, options and answers (test/helpers/properties.ts): a task's
// errors carry its id. A path target is always inside a temporary directory (a property test
// writes nowhere else).
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { tempDir } from '../helpers/fixtures.ts';
import { anyValue, BASE_URL, FILE_URL, ID, mangled, outcome, realize, runs, ScriptedService, script, signalOf, taskBody, TEST_TIMEOUT } from '../helpers/properties.ts';

const service = new ScriptedService();
const client = new OmniMedia({ baseURL: BASE_URL, fetch: service.fetch, logLevel: 'off', maxRetries: 1 });
const dir = await tempDir();

beforeEach(() => void vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] }));
afterEach(() => void vi.useRealTimers());

const source = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(FILE_URL, `${FILE_URL}?X-Amz-Signature=abc`, 'https://user:pass@files.prop.test/0.png', '/relative.png', `data:image/png;base64,iVBORw0KGgo=`) },
  { weight: 4, arbitrary: taskBody(ID) },
  { weight: 1, arbitrary: anyValue },
);
/** Where it goes: a Blob (no `to`), a path in the temporary directory, a web stream, a function, or anything (a string made a path in the directory). */
const target = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 12 }).map((name) => join(dir, 'p', name)),
  fc.constant('stream'),
  fc.constant('function'),
  anyValue,
);

/** The target of a run: a string is only ever a path inside the temporary directory. */
function targetOf(recipe: unknown): unknown {
  if (recipe === 'stream') return new WritableStream();
  if (recipe === 'function') return ({ index }: { index: number }) => join(dir, 'f', `${index}.out`);
  const made = realize(recipe);
  // A hostile function is called as given; a path it names goes inside the directory too (one
  // that named 'a function' wrote a PNG of that name into the working tree).
  if (typeof made === 'function') return (...args: unknown[]) => inside((made as (...a: unknown[]) => unknown)(...args));
  return inside(made);
}

const inside = (path: unknown) => (typeof path === 'string' && !path.startsWith(dir) ? join(dir, 'any', path.replaceAll('..', '__')) : path);

/** `read()`, or undefined when the value it reads is hostile. */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

describe('files.download: any source, any options, any answer, an OmniMediaError or the files', () => {
  it('files.download', async () => {
    await fc.assert(
      fc.asyncProperty(source, target, mangled({ timeout: 5_000, idleTimeout: 5_000, maxRetries: 1 }, ['overwrite', 'signal', 'onProgress']), script, fc.boolean(), async (sourceRecipe, to, optionsRecipe, answers, overwrite) => {
        service.reset(answers);
        const given = realize(sourceRecipe);
        const options = realize<Record<string, unknown> | undefined>(optionsRecipe);
        const made = targetOf(to);
        const all = attempt(() => (Object.getPrototypeOf(options) === Object.prototype ? { ...options, to: made, overwrite } : options)) ?? options;
        const result = await outcome(() => client.files.download(given as never, all as never), { signal: signalOf(options) });
        const taskId = attempt(() => (given as { task_id?: unknown } | null)?.task_id);
        if ('error' in result && typeof given === 'object' && given !== null && typeof taskId === 'string' && taskId && result.error.name !== 'OmniMediaError')
          expect(result.error.taskId, result.error.message).toBe(taskId);
      }),
      runs(),
    );
  }, TEST_TIMEOUT);
});
