// The callback entries under any input (test/helpers/properties.ts): callbacks.handler and
// nodeHandler (made with any options, given any request), verify, parse and url end in an answer,
// a result or an OmniMediaError; a handler never throws, it answers.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia, parseCallback } from 'omnimedia';
import { anyValue, BASE_URL, ID, mangled, outcome, realize, runs, ScriptedService, script, signalOf, taskBody, TEST_TIMEOUT } from '../helpers/properties.ts';

const service = new ScriptedService();
const client = new OmniMedia({ baseURL: BASE_URL, fetch: service.fetch, logLevel: 'off', maxRetries: 1, callbackSecret: 'prop-callback-secret' });

beforeEach(() => void vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] }));
afterEach(() => void vi.useRealTimers());

/** A delivery's body: a task as the service writes it, JSON of anything, or any caller value. */
const body = fc.oneof({ weight: 3, arbitrary: taskBody(ID).map((task) => JSON.stringify(task)) }, { weight: 1, arbitrary: fc.string() }, { weight: 2, arbitrary: anyValue });
const handlerOptions = mangled({ verify: true, maxBytes: 65_536, readTimeout: 5_000 }, ['dedupe']);
const onTask = fc.constantFrom('ok', 'throws', 'hangs');

/** A value as a delivery's body: its JSON, or a text when JSON cannot carry it. */
function serialised(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return 'not json';
  }
}

describe('callbacks: any input, any answer', () => {
  it('callbacks.handler: made with any options and onTask, it answers any request with a status (or refuses to be made)', async () => {
    await fc.assert(
      fc.asyncProperty(handlerOptions, onTask, body, fc.boolean(), script, async (optionsRecipe, behaviour, bodyRecipe, withToken, answers) => {
        service.reset(answers);
        const made = await outcome(() =>
          Promise.resolve().then(() =>
            client.callbacks.handler(
              async () => {
                if (behaviour === 'throws') throw new Error('onTask failed');
                if (behaviour === 'hangs') await new Promise((resolve) => setTimeout(resolve, 10_000));
              },
              realize(optionsRecipe) as never,
            ),
          ),
        );
        if (!('value' in made)) return;
        const handle = made.value as (request: Request) => Promise<Response>;
        const url = withToken ? await client.callbacks.url('https://app.prop.test/cb') : 'https://app.prop.test/cb';
        const given = realize(bodyRecipe);
        const request = new Request(url, { method: 'POST', body: typeof given === 'string' ? given : serialised(given) });
        const answered = await outcome(() => handle(request));
        expect('value' in answered, 'a handler answers, it never throws').toBe(true);
        expect((answered as { value: Response }).value.status).toBeGreaterThanOrEqual(200);
      }),
      runs(),
    );
  }, TEST_TIMEOUT);

  it('callbacks.verify, callbacks.parse, parseCallback and callbacks.url', async () => {
    await fc.assert(
      fc.asyncProperty(body, mangled({ maxBytes: 65_536 }, ['signal']), script, anyValue, async (bodyRecipe, optionsRecipe, answers, urlRecipe) => {
        service.reset(answers);
        const options = realize(optionsRecipe);
        await outcome(() => client.callbacks.verify(realize(bodyRecipe) as never, options as never), { signal: signalOf(options) });
        await outcome(() => client.callbacks.parse(realize(bodyRecipe) as never, options as never));
        await outcome(() => parseCallback(realize(bodyRecipe) as never, options as never));
        await outcome(() => client.callbacks.url(realize(urlRecipe) as never));
      }),
      runs(),
    );
  }, TEST_TIMEOUT);
});
