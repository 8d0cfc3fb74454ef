// images.generate and images.edit under any params, options and answers (test/helpers/properties.ts).
import fc from 'fast-check';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import { OmniMedia, type ImageEditParams, type ImageGenerateParams, type TaskPromise, type TaskSubmission } from 'omnimedia';
import { BASE_URL, FILE_URL, fileObject, mangled, options, outcome, realize, runs, signalOf, ScriptedService, script, TEST_TIMEOUT } from '../helpers/properties.ts';

const service = new ScriptedService();
const client = new OmniMedia({ apiKey: 'sk-prop-0123456789abcdef', baseURL: BASE_URL, fetch: service.fetch, logLevel: 'off', maxRetries: 1 });
const WAIT = { timeout: 6_000, initialDelay: 0, interval: 1_000, maxInterval: 2_000 };

beforeEach(() => void vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] }));
afterEach(() => void vi.useRealTimers());

/** Submit, then (when accepted) wait: each step ends in a value or an OmniMediaError with the task id. */
async function submitAndWait(submit: (params: never, opts: never) => TaskPromise<TaskSubmission>, recipes: [unknown, unknown, unknown]): Promise<void> {
  const [params, opts, wait] = recipes.map((recipe) => realize(recipe));
  const pending = submit(params as never, opts as never);
  const submitted = await outcome(() => pending, { accepted: () => service.accepted, signal: signalOf(opts) });
  if ('value' in submitted) await outcome(() => pending.wait(wait as never), { accepted: () => service.accepted, signal: signalOf(wait) });
}

describe('images: any input, any answer, an OmniMediaError or a result', () => {
  it('images.generate', async () => {
    await fc.assert(
      fc.asyncProperty(mangled({ model: 'omni-image', prompt: 'a fox', size: '1024x1024', n: 1 }, ['quality', 'callback_url']), options(), mangled(WAIT, [], ['timeout']), script, async (params, opts, wait, answers) => {
        service.reset(answers);
        await submitAndWait((p, o) => client.images.generate(p as ImageGenerateParams, o), [params, opts, wait]);
      }),
      runs(),
    );
  }, TEST_TIMEOUT);

  it('images.edit (file objects uploaded first)', async () => {
    await fc.assert(
      fc.asyncProperty(
        mangled({ model: 'omni-image', prompt: 'make it night', image: [FILE_URL, fileObject('blob')], mask: fileObject('bytes') }, ['size', 'n']),
        options(),
        mangled(WAIT, [], ['timeout']),
        script,
        async (params, opts, wait, answers) => {
          service.reset(answers);
          await submitAndWait((p, o) => client.images.edit(p as ImageEditParams, o), [params, opts, wait]);
        },
      ),
      runs(),
    );
  }, TEST_TIMEOUT);
});
