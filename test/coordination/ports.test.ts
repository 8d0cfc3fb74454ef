// The ports' contract is "a value or a promise", and the SDK awaits any thenable (internal/
// thenable.ts): so a store whose methods answer with a PromiseLike (a Promise of another realm,
// a library's own thenable type) is a store, with no cast. Checked by `npm run typecheck`.
import { describe, expectTypeOf, it } from 'vitest';
import type { CachedUpload, CallbackDedupeStore, DedupeClaim, DurationsStore, JournalEntry, PollGrant, PollBudget, RateLimitDecision, RateLimitStore, SubmissionJournal, UploadCacheStore } from 'omnimedia/coordination';

type Thenable<T> = PromiseLike<T>;

describe('coordination ports', () => {
  it('accept stores whose answers are thenables, not only native Promises', () => {
    expectTypeOf<{ claim(key: string): Thenable<DedupeClaim>; release(key: string): Thenable<void> }>().toExtend<CallbackDedupeStore>();
    expectTypeOf<{ get(key: string): Thenable<CachedUpload | undefined>; set(key: string, record: CachedUpload, ttlMs: number): Thenable<void>; delete(key: string): Thenable<void> }>().toExtend<UploadCacheStore>();
    expectTypeOf<{ get(kind: string): Thenable<readonly number[] | undefined>; add(kind: string, ms: number, keep: number): Thenable<void> }>().toExtend<DurationsStore>();
    expectTypeOf<{ maxPerSecond: number; take(now: number): Thenable<PollGrant> }>().toExtend<PollBudget>();
    expectTypeOf<{ take(key: string, limit: number, windowMs: number): Thenable<RateLimitDecision> }>().toExtend<RateLimitStore>();
    expectTypeOf<{
      record(entry: JournalEntry): Thenable<void>;
      adopt(taskId: string): Thenable<void>;
      release(taskId: string): Thenable<void>;
      clear(taskId: string): Thenable<void>;
      list(): Thenable<readonly JournalEntry[]>;
      pending(): Thenable<readonly JournalEntry[]>;
    }>().toExtend<SubmissionJournal>();
  });
});
