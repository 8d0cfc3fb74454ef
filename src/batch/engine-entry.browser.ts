/**
 * The browser twin of engine-entry.ts: a page's build has no batch engine. `client.batch()`
 * there is a `ValidationError` before anything is sent. Why: a batch of thousands of tasks
 * belongs on a server (a tab that closes stops it; a page talks through the proxy, without the
 * API key), and the engine is 4.9 KB gzip, a sixth of the page's whole client, that every page
 * would ship when a bundler does not split it off.
 */
import { ValidationError } from '../errors.ts';
import type { BatchOptions } from '../options.ts';
import type { BatchResult } from '../schemas/batch.ts';
import type { BatchSource } from './engine.ts';
import type { BatchPorts } from './ports.ts';

// eslint-disable-next-line require-yield
export async function* runClientBatch(_ports: BatchPorts, _jobs: BatchSource, _options: BatchOptions | undefined): AsyncGenerator<BatchResult, void, undefined> {
  throw new ValidationError(
    [{ path: 'jobs', message: 'client.batch() runs in Node, Deno or Bun (a server or a script): in a page, submit each task, or run the batch on your server' }],
    'client.batch',
  );
}
