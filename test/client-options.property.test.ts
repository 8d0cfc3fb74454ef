// The constructors under any options (test/helpers/properties.ts): new OmniMedia and new
// TasksClient make a client or throw a ValidationError naming the option, never a raw error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OmniMedia, ValidationError } from 'omnimedia';
import { TasksClient } from 'omnimedia/tasks';
import { BASE_URL, mangled, realize, RUNS, runs, TEST_TIMEOUT } from './helpers/properties.ts';

const BASE = { apiKey: 'sk-prop-0123456789abcdef', baseURL: BASE_URL, timeout: 5_000, maxRetries: 1, logLevel: 'off' };
const EXTRA = ['fetch', 'defaultHeaders', 'logger', 'uploadTimeout', 'uploadCache', 'callbackSecret', 'maxPollsPerSecond', 'coordination', 'proxyURL', 'telemetry', 'dangerouslyAllowBrowser'];

describe('constructors: any options, a client or a ValidationError', () => {
  it.each([
    ['new OmniMedia', (options: unknown) => new OmniMedia(options as never)],
    ['new TasksClient', (options: unknown) => new TasksClient(options as never)],
  ] as const)('%s', (_name, make) => {
    fc.assert(
      fc.property(mangled(BASE, EXTRA), (recipe) => {
        try {
          make(realize(recipe));
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(ValidationError);
        }
      }),
      runs(RUNS * 8),
    );
  }, TEST_TIMEOUT);
});
