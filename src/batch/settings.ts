/** The options of `client.batch()` checked before anything is read or sent, with their defaults. */
import type { BatchJournal } from '../coordination/batch-journal.ts';
import { objectOf, OptionProblems, resolveWaitOptions } from '../option-checks.ts';
import type { BatchOptions } from '../options.ts';
import { AUTO_MAX } from './concurrency.ts';

export interface BatchSettings {
  concurrency: number | 'auto';
  journal: string | BatchJournal | undefined;
  signal: AbortSignal | undefined;
  resubmitUnknown: boolean;
  skipInvalid: boolean;
  dryRun: boolean;
  download: string | undefined;
  wait: NonNullable<BatchOptions['wait']>;
  onProgress: BatchOptions['onProgress'];
}

/** A `ValidationError` naming each bad option, before anything is read or sent. */
export function resolveBatchOptions(options: BatchOptions | undefined): BatchSettings {
  const o = objectOf(options, 'batch');
  const problems = new OptionProblems('batch options');
  const concurrency = o.concurrency ?? 'auto';
  if (concurrency !== 'auto' && (!Number.isSafeInteger(concurrency) || (concurrency as number) < 1 || (concurrency as number) > AUTO_MAX))
    problems.add('concurrency', `must be 'auto' or a whole number from 1 to ${AUTO_MAX} (got ${String(concurrency)})`);
  if (o.journal !== undefined && typeof o.journal !== 'string')
    problems.port('journal', o.journal, 'write', 'a file path or a BatchJournal (read and write)');
  if (typeof o.journal === 'string' && o.journal === '') problems.add('journal', 'must be a file path or a BatchJournal');
  problems.port('journal', typeof o.journal === 'object' ? o.journal : undefined, 'read', 'a file path or a BatchJournal (read and write)');
  problems.signal(o.signal);
  for (const flag of ['resubmitUnknown', 'skipInvalid', 'dryRun'] as const)
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean') problems.add(flag, 'must be true or false');
  if (o.download !== undefined && (typeof o.download !== 'string' || o.download === '')) problems.add('download', 'must be a directory path');
  problems.fn('onProgress', o.onProgress);
  problems.done();
  const wait = (o.wait ?? {}) as NonNullable<BatchOptions['wait']>;
  // The wait options' own rules, now: a bad one is found before the first submission.
  resolveWaitOptions(wait);
  return {
    concurrency: concurrency as number | 'auto',
    journal: o.journal as string | BatchJournal | undefined,
    signal: o.signal as AbortSignal | undefined,
    resubmitUnknown: o.resubmitUnknown === true,
    skipInvalid: o.skipInvalid === true,
    dryRun: o.dryRun === true,
    download: o.download as string | undefined,
    wait,
    onProgress: o.onProgress as BatchOptions['onProgress'],
  };
}
