// The AI SDK provider under any call options and any answers (test/helpers/properties.ts):
// omni.image().doGenerate and omni.video().doStart/doStatus end in a result or an
// OmniMediaError, and every error after an accepted submission carries its task id.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import { createOmniMedia } from 'omnimedia/ai-sdk';
import { anyValue, BASE_URL, fileObject, mangled, outcome, realize, runs, ScriptedService, script, TEST_TIMEOUT } from '../helpers/properties.ts';

const service = new ScriptedService();
const omni = createOmniMedia({ apiKey: 'sk-prop-0123456789abcdef', baseURL: BASE_URL, fetch: service.fetch, logLevel: 'off', maxRetries: 1 });

beforeEach(() => void vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] }));
afterEach(() => void vi.useRealTimers());

const providerOptions = fc.oneof(fc.constant(undefined), mangled({ omnimedia: { quality: 'high' } }), fc.record({ omnimedia: anyValue }));

describe('the AI SDK provider: any call options, any answer', () => {
  it('omni.image().doGenerate (a generation, or an edit with files)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 4, arbitrary: fc.constant('a fox') }, { weight: 1, arbitrary: anyValue }),
        fc.oneof({ weight: 4, arbitrary: fc.constantFrom(1, 2) }, { weight: 1, arbitrary: anyValue }),
        fc.oneof(fc.constant(undefined), fc.constantFrom('1024x1024', '1000x1000'), anyValue),
        providerOptions,
        fc.boolean(),
        script,
        async (prompt, n, size, provider, edit, answers) => {
          service.reset(answers);
          const files = edit ? [{ type: 'file', mediaType: 'image/png', data: realize(fileObject('bytes')) }] : undefined;
          const options = { prompt: realize(prompt), n: realize(n), size: realize(size), providerOptions: realize(provider), files, headers: {}, aspectRatio: undefined, seed: undefined };
          await outcome(() => omni.image('omni-image').doGenerate(options as never), { accepted: () => service.accepted });
        },
      ),
      runs(),
    );
  }, TEST_TIMEOUT);

  it('omni.video().doStart, then doStatus', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 4, arbitrary: fc.constant('a paper boat') }, { weight: 1, arbitrary: anyValue }),
        fc.oneof(fc.constant(undefined), fc.constantFrom(4, 6, 7), anyValue),
        fc.oneof(fc.constant(undefined), fc.constantFrom('1280x720', '640x480'), anyValue),
        providerOptions,
        script,
        async (prompt, duration, resolution, provider, answers) => {
          service.reset(answers);
          const model = omni.video('omni_flash');
          const options = { prompt: realize(prompt), duration: realize(duration), resolution: realize(resolution), providerOptions: realize(provider), headers: {}, n: 1 };
          const started = await outcome(() => model.doStart(options as never), { accepted: () => service.accepted });
          if ('value' in started) await outcome(() => model.doStatus({ operation: (started.value as { operation: never }).operation }), { accepted: () => service.accepted });
        },
      ),
      runs(),
    );
  }, TEST_TIMEOUT);
});
