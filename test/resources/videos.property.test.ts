// videos.generate and videos.edit under any params, options and answers (test/helpers/properties.ts).
import fc from 'fast-check';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import { OmniMedia, type VideoEditParams, type VideoGenerateParams } from 'omnimedia';
import { BASE_URL, FILE_URL, fileObject, mangled, options, outcome, realize, runs, ScriptedService, script, signalOf, TEST_TIMEOUT } from '../helpers/properties.ts';

const service = new ScriptedService();
const client = new OmniMedia({ apiKey: 'sk-prop-0123456789abcdef', baseURL: BASE_URL, fetch: service.fetch, logLevel: 'off', maxRetries: 1 });
const WAIT = { timeout: 6_000, initialDelay: 0, interval: 1_000, maxInterval: 2_000 };

beforeEach(() => void vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] }));
afterEach(() => void vi.useRealTimers());

describe('videos: any input, any answer, an OmniMediaError or a result', () => {
  it.each([
    ['videos.generate (text, or images uploaded first)', (p: unknown, o: unknown) => client.videos.generate(p as VideoGenerateParams, o as never), { prompt: 'a paper boat', images: [FILE_URL, fileObject('blob')], seconds: 4 }, ['model', 'messages', 'resolution', 'aspect_ratio']],
    ['videos.edit (a video uploaded first)', (p: unknown, o: unknown) => client.videos.edit(p as VideoEditParams, o as never), { prompt: 'make it snow', input_video: 'upload_1' }, ['messages', 'model', 'resolution']],
  ] as const)('%s', async (_name, submit, base, extra) => {
    await fc.assert(
      fc.asyncProperty(mangled(base, extra), options(), mangled(WAIT, [], ['timeout']), script, async (...recipes) => {
        const [params, opts, wait] = recipes.slice(0, 3).map((recipe) => realize(recipe));
        service.reset(recipes[3]);
        const pending = submit(params, opts);
        const submitted = await outcome(() => pending, { accepted: () => service.accepted, signal: signalOf(opts) });
        if ('value' in submitted) await outcome(() => pending.wait(wait as never), { accepted: () => service.accepted, signal: signalOf(wait) });
      }),
      runs(),
    );
  }, TEST_TIMEOUT);
});
