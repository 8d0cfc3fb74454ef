import { describe, expect, it } from 'vitest';
import { raceAbort } from '../../src/internal/race-abort.ts';

describe('raceAbort', () => {
  it('settles as the promise does while the signal stays quiet, and drops its listener', async () => {
    const controller = new AbortController();
    expect(await raceAbort(Promise.resolve(1), controller.signal)).toBe(1);
    await expect(raceAbort(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow('no');
    expect(await raceAbort(2, controller.signal)).toBe(2);
  });

  it('rejects with the reason the moment the signal aborts, and a late rejection is handled', async () => {
    const controller = new AbortController();
    let fail: (error: Error) => void = () => {};
    const hung = new Promise<never>((_, reject) => (fail = reject));
    const racing = raceAbort(hung, controller.signal);
    controller.abort(new Error('stop'));
    await expect(racing).rejects.toThrow('stop');
    fail(new Error('late')); // no unhandled rejection: vitest would fail the run
    await expect(raceAbort(new Promise(() => {}), controller.signal, () => 'given reason')).rejects.toBe('given reason');
  });

  it('races a thenable that is not a native Promise (a store written by a user): the abort still ends it', async () => {
    const controller = new AbortController();
    // A hung store's answer, as a hand-written thenable: `then` takes callbacks and never calls them.
    const hung: PromiseLike<number> = { then: () => hung as never };
    const racing = raceAbort(hung, controller.signal);
    controller.abort(new Error('stop'));
    await expect(racing).rejects.toThrow('stop');
    const answered: PromiseLike<number> = { then: (resolve) => (resolve?.(3), answered as never) };
    expect(await raceAbort(answered, new AbortController().signal)).toBe(3);
  });
});
