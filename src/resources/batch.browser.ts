/**
 * The browser twin of batch.ts: a page's build has no batch engine (batch/engine-entry.browser.ts:
 * `client.batch()` is a `ValidationError` there), so it has no ports for one either: every
 * port is that same refusal. Why: the ports are 0.3 KB gzip of a page's client, for nothing.
 */
import type { BatchPorts } from '../batch/ports.ts';
import { ValidationError } from '../errors.ts';
import type { BatchParts } from './batch.ts';

export type { BatchParts };

/** No ports in a page: each call is the refusal `client.batch()` gives there. */
export function batchPorts(_parts: BatchParts): BatchPorts {
  const refuse = (): never => {
    throw new ValidationError([{ path: 'jobs', message: 'client.batch() runs in Node, Deno or Bun' }], 'client.batch');
  };
  return { check: refuse, checkFile: refuse, upload: refuse, submit: refuse, wait: refuse, resultURLs: refuse, download: refuse, clientJournal: { read: refuse, write: refuse } };
}
