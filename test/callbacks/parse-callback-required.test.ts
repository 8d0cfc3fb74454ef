// A callback body without a required field says "is required" for it (issue 26 saw
// `task_id: Invalid input`, zod's word for a missing field), through parseCallback and the client.
import { describe, expect, it } from 'vitest';
import { CallbackError, OmniMedia, parseCallback } from 'omnimedia';

const reject = (work: Promise<unknown>) => work.then(() => expect.fail('accepted'), (error: unknown) => error as CallbackError);

describe('a callback body missing a required field', () => {
  it.each([
    ['{"status":"x"}', 'task_id: is required'],
    ['{"task_id":"t"}', 'status: is required'],
    ['{}', 'task_id: is required; status: is required'],
  ])('%s: %s', async (body, problem) => {
    for (const parse of [parseCallback, (b: string) => new OmniMedia({ baseURL: 'https://media.example.com' }).callbacks.parse(b)]) {
      const error = await reject(parse(body));
      expect(error).toBeInstanceOf(CallbackError);
      expect(error.reason).toBe('invalid_shape');
      expect(error.message).toContain(`(${problem})`);
      expect(error.message).not.toMatch(/Invalid input/i);
    }
  });
});
