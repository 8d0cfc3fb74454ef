/**
 * `client.batch()`'s engine, loaded at the first line asked for: a client that never batches
 * loads none of it. A page's build takes the browser twin (engine-loader.browser.ts) instead.
 */
import type { BatchOptions } from '../options.ts';
import type { BatchResult } from '../schemas/batch.ts';
import type { BatchSource } from './engine.ts';
import type { BatchPorts } from './ports.ts';

/** The batch's result lines, from the engine loaded on first use. */
export async function* runBatchLazily(ports: BatchPorts, jobs: BatchSource, options: BatchOptions | undefined): AsyncGenerator<BatchResult, void, undefined> {
  const { runBatch } = await import('./engine.ts');
  yield* runBatch(ports, jobs, options);
}
