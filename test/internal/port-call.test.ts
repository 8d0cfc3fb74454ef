// The one boundary of every port call: what callPort answers for each thing a port may do, and
// what a PortGuard remembers (one warning per outage, the writes that must arrive).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callPort, firePort, PortGuard, PortTimeout } from '../../src/internal/port-call.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const FALLBACK = 'fallback';
const bounds = { timeoutMs: 1_000, fallback: (why: unknown) => [FALLBACK, why instanceof Error ? why.message : why] as const };

describe('callPort', () => {
  it('answers a synchronous answer synchronously: no promise, no timer', () => {
    expect(callPort(() => 42, bounds)).toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a synchronous throw, a rejection, a then that throws: the fallback, never the error', async () => {
    expect(
      callPort(() => {
        throw new Error('sync');
      }, bounds),
    ).toEqual([FALLBACK, 'sync']);
    expect(await callPort(() => Promise.reject(new Error('rejected')), bounds)).toEqual([FALLBACK, 'rejected']);
    const oddThen = {
      then() {
        throw new Error('odd');
      },
    };
    expect(await callPort(() => oddThen as unknown as PromiseLike<number>, bounds)).toEqual([FALLBACK, 'odd']);
    const getterThrows = Object.defineProperty({}, 'then', {
      get() {
        throw new Error('getter');
      },
    });
    expect(callPort(() => getterThrows, bounds)).toEqual([FALLBACK, 'getter']);
  });

  it('a thenable that calls back twice settles once, with its first word', async () => {
    const twice = {
      then(resolve: (value: number) => void, reject: (error: unknown) => void) {
        resolve(1);
        reject(new Error('then this'));
        resolve(2);
      },
    };
    expect(await callPort(() => twice as unknown as PromiseLike<number>, bounds)).toBe(1);
  });

  it('one that never answers: the fallback with a PortTimeout at timeoutMs, and not before', async () => {
    let settled: unknown;
    void Promise.resolve(callPort(() => new Promise<number>(() => {}), { timeoutMs: 1_000, fallback: (why) => why })).then((value) => (settled = value));
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBeInstanceOf(PortTimeout);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an abort: rejects with the signal’s reason at once (the caller gave up), or answers the fallback when told', async () => {
    const controller = new AbortController();
    const rejecting = Promise.resolve(callPort(() => new Promise<number>(() => {}), { ...bounds, signal: controller.signal })).catch((error: unknown) => error);
    const falling = callPort(() => new Promise<number>(() => {}), { ...bounds, signal: controller.signal, abort: 'fallback' });
    controller.abort(new Error('left'));
    expect(await rejecting).toEqual(new Error('left'));
    expect(await falling).toEqual([FALLBACK, 'left']);
    // Already aborted: the port is not even called.
    let called = false;
    await expect(Promise.resolve(callPort(() => (called = true), { ...bounds, signal: controller.signal }))).rejects.toThrow('left');
    expect(called).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an answer `accept` refuses is a failure; `answered` hears the ones it takes', async () => {
    let answered = 0;
    const isNumber = (answer: unknown) => typeof answer === 'number';
    expect(callPort(() => 'junk' as unknown as number, { ...bounds, accept: isNumber, answered: () => answered++ })).toEqual([FALLBACK, 'answered what is not an answer']);
    expect(await callPort(() => Promise.resolve(7), { ...bounds, accept: isNumber, answered: () => answered++ })).toBe(7);
    expect(answered).toBe(1);
  });

  it('a failure after the call answered (late) goes to `late`, never up', async () => {
    let fail!: (error: Error) => void;
    const late: unknown[] = [];
    const answer = callPort(() => new Promise<number>((_, reject) => (fail = reject)), { timeoutMs: 100, fallback: () => 0, late: (error) => late.push(error) });
    await vi.advanceTimersByTimeAsync(100);
    expect(await answer).toBe(0);
    fail(new Error('late'));
    await vi.advanceTimersByTimeAsync(0);
    expect(late).toEqual([new Error('late')]);
  });
});

describe('firePort', () => {
  it('a write nobody waits for: its throw, rejection or odd thenable goes to `failed`', async () => {
    const failed: unknown[] = [];
    firePort(() => {
      throw new Error('sync');
    }, (error) => failed.push(error));
    firePort(() => Promise.reject(new Error('async')), (error) => failed.push(error));
    firePort(() => ({ then: () => { throw new Error('odd'); } }), (error) => failed.push(error));
    firePort(() => 'fine', (error) => failed.push(error));
    await vi.advanceTimersByTimeAsync(0);
    expect(failed.map((e) => (e as Error).message).sort()).toEqual(['async', 'odd', 'sync']);
  });
});

describe('PortGuard', () => {
  it('one warning when its port starts failing, one line when it answers again, and again for the next outage', async () => {
    const lines: string[] = [];
    const guard = new PortGuard('the test store', { warn: (m) => lines.push(`warn ${m}`), info: (m) => lines.push(`info ${m}`) });
    const fail = () => Promise.reject(new Error('down'));
    for (let i = 0; i < 3; i++) await guard.call(fail, { timeoutMs: 100, fallback: () => undefined });
    guard.fire(fail);
    await guard.call(() => 'up', { timeoutMs: 100, fallback: () => undefined });
    await guard.call(fail, { timeoutMs: 100, fallback: () => undefined });
    expect(lines).toEqual([
      'warn the test store failed (down): going on without it until it answers again',
      'info the test store answers again',
      'warn the test store failed (down): going on without it until it answers again',
    ]);
  });

  it('a write that must arrive is kept while the port fails (the last of each key) and sent when it next answers a call', async () => {
    let up = false;
    const sent: string[] = [];
    const guard = new PortGuard('the test store');
    const write = (what: string) => () => (up ? void sent.push(what) : Promise.reject(new Error('down')));
    await guard.keep('claim:a', write('release a'));
    await guard.keep('claim:a', write('done a')); // replaces the kept release
    await guard.keep('claim:b', write('release b'));
    expect(sent).toEqual([]);
    up = true;
    await guard.call(() => 'answer', { timeoutMs: 100, fallback: () => undefined });
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.sort()).toEqual(['done a', 'release b']);
    await guard.call(() => 'answer', { timeoutMs: 100, fallback: () => undefined });
    expect(sent).toHaveLength(2); // sent once
  });

  it('a write that must arrive is sent even when its caller has already gone', async () => {
    const sent: string[] = [];
    const guard = new PortGuard('the test store');
    const gone = AbortSignal.abort(new Error('left'));
    const answer = await guard.call(() => void sent.push('record'), { timeoutMs: 100, signal: gone, abort: 'fallback', keep: 'journal:t', fallback: () => 'answered anyway' });
    expect(answer).toBe('answered anyway');
    expect(sent).toEqual(['record']);
  });
});
