import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryDedupeStore, MemoryDurationsStore, MemoryJournal, MemoryPollBudget, MemoryRateLimits } from '../../src/coordination/memory.ts';

afterEach(() => vi.useRealTimers());

describe('MemoryPollBudget', () => {
  it('grants maxPerSecond queries, then none until one second after the oldest was answered', () => {
    vi.useFakeTimers({ now: 10_000 });
    const budget = new MemoryPollBudget(2);
    const a = budget.take(10_000);
    const b = budget.take(10_000);
    expect('release' in a && 'release' in b).toBe(true);
    // Both unanswered: a slot counts for 5 s at most, plus the one-second window.
    expect(budget.take(10_000)).toEqual({ retryAt: 16_000 });
    vi.setSystemTime(10_200);
    if ('release' in a) a.release();
    expect(budget.take(10_200)).toEqual({ retryAt: 11_200 });
    expect('release' in budget.take(11_200)).toBe(true);
  });
});

describe('MemoryDedupeStore', () => {
  it('never evicts a claim in progress: past maxEntries a duplicate still gets "in progress" (was: true, onTask ran twice)', () => {
    const store = new MemoryDedupeStore(2);
    expect(store.claim('a:completed')).toBe(true); // onTask runs for a...
    for (const other of ['b', 'c', 'd', 'e']) {
      expect(store.claim(`${other}:completed`)).toBe(true);
      store.complete(`${other}:completed`);
    }
    expect(store.claim('a:completed')).toBe('in_progress'); // ...and a redelivery of a must not run it again
    store.complete('a:completed');
    expect(store.claim('a:completed')).toBe(false);
  });

  it('stays bounded: done claims past maxEntries are forgotten, the least recently used first', () => {
    const store = new MemoryDedupeStore(3);
    for (let i = 0; i < 100; i++) {
      store.claim(`t${i}:completed`);
      store.complete(`t${i}:completed`);
    }
    expect(store.size).toBe(3);
    expect(store.claim('t99:completed')).toBe(false);
  });
});

describe('MemoryDurationsStore', () => {
  it('keeps the most recent `keep` durations per kind', () => {
    const store = new MemoryDurationsStore();
    for (const ms of [1, 2, 3, 4]) store.add('k', ms, 3);
    expect(store.get('k')).toEqual([2, 3, 4]);
    expect(store.get('other')).toBeUndefined();
  });
});

describe('MemoryJournal', () => {
  it('records, lists and clears accepted submissions, for a day at most', () => {
    vi.useFakeTimers({ now: 0 });
    const journal = new MemoryJournal();
    journal.record({ task_id: 'a', kind: 'image_generation', submitted_at: 0 });
    journal.record({ task_id: 'b', kind: 'video_generation', submitted_at: 0 });
    journal.clear('a');
    expect(journal.list()).toEqual([{ task_id: 'b', kind: 'video_generation', submitted_at: 0 }]);
    vi.setSystemTime(24 * 3_600_000);
    expect(journal.list()).toEqual([]);
  });
});

describe('MemoryRateLimits', () => {
  it('a sliding window per key: `limit` requests, then none until the oldest is `windowMs` old', () => {
    let now = 100_000;
    const limits = new MemoryRateLimits(10, () => now);
    expect(limits.take('a', 2, 60_000)).toEqual({ allowed: true });
    now += 10_000;
    expect(limits.take('a', 2, 60_000)).toEqual({ allowed: true });
    expect(limits.take('a', 2, 60_000)).toEqual({ allowed: false, retryAfterMs: 50_000 });
    expect(limits.take('b', 2, 60_000)).toEqual({ allowed: true }); // another identity
    // Not a fixed window: just past the first request's minute, one more, not two.
    now = 160_001;
    expect(limits.take('a', 2, 60_000)).toEqual({ allowed: true });
    expect(limits.take('a', 2, 60_000)).toEqual({ allowed: false, retryAfterMs: 9_999 });
    // A refusal counts nothing.
    now = 170_001;
    expect(limits.take('a', 2, 60_000)).toEqual({ allowed: true });
  });

  it('is bounded: keys idle for their window, and the least recently used past maxKeys, are forgotten', () => {
    let now = 0;
    const limits = new MemoryRateLimits(3, () => now);
    for (const key of ['a', 'b', 'c', 'd']) limits.take(key, 1, 1_000);
    expect(limits.size).toBe(3);
    expect(limits.take('a', 1, 1_000)).toEqual({ allowed: true }); // 'a' was dropped first
    now = 5_000;
    expect(limits.take('d', 1, 1_000)).toEqual({ allowed: true });
  });
});
