// The one boundary of every port call: what callPort answers for each thing a port may do, and
// what a PortGuard remembers (one warning per outage, the writes that must arrive).
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callPort, firePort, guardOf, PortGuard, PortTimeout } from '../../src/internal/port-call.ts';

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

  it('a `then` that throws when read is reported at once, as a synchronous throw is', () => {
    const failed: unknown[] = [];
    const getterThrows = Object.defineProperty({}, 'then', {
      get() {
        throw new Error('getter');
      },
    });
    firePort(() => getterThrows, (error) => failed.push(error));
    expect(failed).toEqual([new Error('getter')]);
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

describe('callPort: the edges', () => {
  it('a PortTimeout says how long the port had', async () => {
    const answer = callPort(() => new Promise<number>(() => {}), { timeoutMs: 250, fallback: (why) => (why as Error).message });
    await vi.advanceTimersByTimeAsync(250);
    expect(await answer).toBe('no answer within 250 ms');
  });

  it('a signal already aborted, abort "fallback": the fallback answers synchronously and the port is not called', () => {
    let called = false;
    const gone = AbortSignal.abort(new Error('left'));
    expect(callPort(() => (called = true), { ...bounds, signal: gone, abort: 'fallback' })).toEqual([FALLBACK, 'left']);
    expect(called).toBe(false);
  });

  it('a thenable that answers twice is answered once: `answered` hears it once, and an answer after the timeout is not heard', async () => {
    let answered = 0;
    const twice = {
      then(resolve: (value: number) => void) {
        resolve(1);
        resolve(2);
      },
    };
    expect(await callPort(() => twice as unknown as PromiseLike<number>, { ...bounds, answered: () => answered++ })).toBe(1);
    expect(answered).toBe(1);
    let late!: (value: number) => void;
    const slow = callPort(() => new Promise<number>((resolve) => (late = resolve)), { ...bounds, answered: () => answered++ });
    await vi.advanceTimersByTimeAsync(1_000);
    late(3);
    await vi.advanceTimersByTimeAsync(0);
    expect(await slow).toEqual([FALLBACK, 'no answer within 1000 ms']);
    expect(answered).toBe(1);
  });

  it('leaves no listener on the caller’s signal once it answered (a long-lived signal serves many calls)', async () => {
    const controller = new AbortController();
    await callPort(() => Promise.resolve(1), { ...bounds, signal: controller.signal });
    await callPort(() => Promise.reject(new Error('down')), { ...bounds, signal: controller.signal });
    const slow = callPort(() => new Promise<number>(() => {}), { ...bounds, signal: controller.signal });
    await vi.advanceTimersByTimeAsync(1_000);
    await slow;
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a failure after the call answered, with no `late` to hear it, is dropped: no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let fail!: (error: Error) => void;
      const answer = callPort(() => new Promise<number>((_, reject) => (fail = reject)), { timeoutMs: 100, fallback: () => 0 });
      await vi.advanceTimersByTimeAsync(100);
      expect(await answer).toBe(0);
      fail(new Error('late'));
      vi.useRealTimers();
      await new Promise((resolve) => setTimeout(resolve, 10)); // unhandled rejections are reported after the microtasks
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});

describe('PortGuard: its log, its answers, its kept writes', () => {
  const logOf = () => {
    const lines: string[] = [];
    return { lines, log: { warn: (m: string) => lines.push(`warn ${m}`), info: (m: string) => lines.push(`info ${m}`) } };
  };
  const down = () => Promise.reject(new Error('down'));
  const quiet = { timeoutMs: 100, fallback: () => 'fallback' };

  it('answers the port’s answer, or the caller’s fallback', async () => {
    const guard = new PortGuard('the test store');
    expect(guard.call(() => 'answer', quiet)).toBe('answer');
    expect(await guard.call(() => Promise.resolve('later'), quiet)).toBe('later');
    expect(await guard.call(down, quiet)).toBe('fallback');
  });

  it('fire: a failed write nobody waits for is this port’s failure (one warning)', async () => {
    const { lines, log } = logOf();
    const guard = new PortGuard('the test store', log);
    guard.fire(down);
    guard.fire(() => {
      throw new Error('again');
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(lines).toEqual(['warn the test store failed (again): going on without it until it answers again']);
  });

  it('a port that answers is not said to answer "again" unless it had failed', async () => {
    const { lines, log } = logOf();
    const guard = new PortGuard('the test store', log);
    await guard.call(() => 'up', quiet);
    await guard.call(() => 'up', quiet);
    expect(lines).toEqual([]);
  });

  it('a log without info: the warning, and a quiet recovery', async () => {
    const warnings: string[] = [];
    const guard = new PortGuard('the test store', { warn: (m) => warnings.push(m) });
    await guard.call(down, quiet);
    expect(await guard.call(() => 'up', quiet)).toBe('up');
    expect(warnings).toHaveLength(1);
  });

  it('an abort the caller answers with its fallback is not the port’s failure; a failure with that option, or with no signal, is', async () => {
    const { lines, log } = logOf();
    const guard = new PortGuard('the test store', log);
    const controller = new AbortController();
    const left = guard.call(() => new Promise(() => {}), { ...quiet, signal: controller.signal, abort: 'fallback' });
    controller.abort(new Error('left'));
    expect(await left).toBe('fallback');
    expect(lines).toEqual([]);
    await guard.call(down, { ...quiet, signal: new AbortController().signal, abort: 'fallback' });
    expect(lines).toHaveLength(1);

    const other = logOf();
    await new PortGuard('the other store', other.log).call(down, { ...quiet, abort: 'fallback' });
    expect(other.lines).toEqual(['warn the other store failed (down): going on without it until it answers again']);
  });

  it('a port that throws is at fault even when the caller’s signal aborted meanwhile (abort "reject")', () => {
    const { lines, log } = logOf();
    const controller = new AbortController();
    const answer = new PortGuard('the test store', log).call(() => {
      controller.abort(new Error('left'));
      throw new Error('broken');
    }, { ...quiet, signal: controller.signal });
    expect(answer).toBe('fallback');
    expect(lines).toEqual(['warn the test store failed (broken): going on without it until it answers again']);
  });

  it('a failed read is not kept: only a write with `keep` is sent again when the port answers', async () => {
    let reads = 0;
    let up = false;
    const guard = new PortGuard('the test store');
    const read = () => (reads++, up ? 'value' : Promise.reject(new Error('down')));
    await guard.call(read, quiet);
    up = true;
    await guard.call(() => 'up', quiet);
    await vi.advanceTimersByTimeAsync(0);
    expect(reads).toBe(1);
  });

  it('keeps at most 10,000 writes while its port fails, the oldest dropped first', async () => {
    let up = false;
    const sent = new Set<string>();
    const guard = new PortGuard('the test store');
    for (let i = 0; i <= 10_000; i++) {
      await guard.keep(`k${i}`, () => {
        if (!up) throw new Error('down');
        sent.add(`k${i}`);
      });
    }
    up = true;
    await guard.call(() => 'up', quiet);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.size).toBe(10_000);
    expect(sent.has('k0')).toBe(false);
    expect(sent.has('k1') && sent.has('k10000')).toBe(true);
  });

  it('at the bound, a write of a kept key replaces it in place and drops no other', async () => {
    let up = false;
    const sent = new Map<string, string>();
    const guard = new PortGuard('the test store');
    const write = (key: string, what: string) => () => {
      if (!up) throw new Error('down');
      sent.set(key, what);
    };
    for (let i = 0; i < 10_000; i++) await guard.keep(`k${i}`, write(`k${i}`, 'first'));
    await guard.call(write('k5000', 'second'), { ...quiet, keep: 'k5000' });
    up = true;
    await guard.call(() => 'up', quiet);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.size).toBe(10_000);
    expect(sent.get('k0')).toBe('first');
    expect(sent.get('k5000')).toBe('second');
  });

  it('a read on a signal already aborted is not made (only a write with `keep` is sent after its caller left)', async () => {
    let reads = 0;
    const gone = AbortSignal.abort(new Error('left'));
    const guard = new PortGuard('the test store');
    await expect(Promise.resolve(guard.call(() => reads++, { ...quiet, signal: gone }))).rejects.toThrow('left');
    expect(guard.call(() => reads++, { ...quiet, signal: gone, abort: 'fallback' })).toBe('fallback');
    await vi.advanceTimersByTimeAsync(0);
    expect(reads).toBe(0);
  });
});

describe('guardOf', () => {
  it('one guard per port object, made by its first caller: one warning however many features call it', async () => {
    const lines: string[] = [];
    const log = { warn: (m: string) => lines.push(m) };
    const port = {};
    const first = guardOf(port, 'the journal', log);
    const second = guardOf(port, 'another name', { warn: () => {} });
    expect(second).toBe(first);
    await first.call(() => Promise.reject(new Error('down')), { timeoutMs: 100, fallback: () => undefined });
    await second.call(() => Promise.reject(new Error('down')), { timeoutMs: 100, fallback: () => undefined });
    expect(lines).toEqual(['the journal failed (down): going on without it until it answers again']);
    expect(guardOf({}, 'the journal', log)).not.toBe(first);
  });
});
