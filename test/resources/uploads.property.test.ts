// uploads.image and uploads.video under any file, options and answers (test/helpers/properties.ts).
import fc from 'fast-check';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { anyValue, BASE_URL, fileObject, options, outcome, realize, runs, ScriptedService, script, signalOf, TEST_TIMEOUT } from '../helpers/properties.ts';

const service = new ScriptedService();
const client = new OmniMedia({ apiKey: 'sk-prop-0123456789abcdef', baseURL: BASE_URL, fetch: service.fetch, logLevel: 'off', maxRetries: 1 });

beforeEach(() => void vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] }));
afterEach(() => void vi.useRealTimers());

const file = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(fileObject('bytes'), fileObject('blob')) }, { weight: 2, arbitrary: anyValue });

describe('uploads: any file, any options, any answer, an OmniMediaError or a record', () => {
  it.each(['image', 'video'] as const)('uploads.%s', async (kind) => {
    await fc.assert(
      fc.asyncProperty(file, options({}, ['filename']), script, async (fileRecipe, optionsRecipe, answers) => {
        service.reset(answers);
        const opts = realize(optionsRecipe);
        await outcome(() => client.uploads[kind](realize(fileRecipe) as never, opts as never), { signal: signalOf(opts) });
      }),
      runs(),
    );
  }, TEST_TIMEOUT);
});
