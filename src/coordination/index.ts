/**
 * `omnimedia/coordination`: the state a fleet of clients shares, as ports a custom store
 * implements (every method may return a value or a promise), and the in-memory stores a
 * single process uses by default. `omnimedia/redis` implements them all on Redis.
 *
 * @example
 * ```ts
 * import type { CallbackDedupeStore } from 'omnimedia/coordination';
 *
 * const seen = new Set<string>();
 * const dedupe: CallbackDedupeStore = {
 *   claim: (key) => (seen.has(key) ? false : (seen.add(key), true)),
 *   release: (key) => void seen.delete(key),
 * };
 * const handle = client.callbacks.handler(onTask, { dedupe });
 * ```
 *
 * @module omnimedia/coordination
 */
export { MemoryDedupeStore, MemoryUploadCacheStore } from './memory.ts';
export { MemoryBatchJournal, type BatchJobState, type BatchJournal, type BatchJournalEntry } from './batch-journal.ts';
export type {
  CachedUpload,
  CallbackDedupeStore,
  Coordination,
  DedupeClaim,
  DurationsStore,
  JournalEntry,
  PollBudget,
  PollGrant,
  RateLimitDecision,
  RateLimitStore,
  SubmissionJournal,
  TaskEventBus,
  TaskLeases,
  TaskListener,
  UploadCacheStore,
} from './ports.ts';
