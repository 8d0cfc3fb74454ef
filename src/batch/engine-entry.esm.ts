/**
 * `client.batch()`'s engine in the ESM build of `omnimedia`: loaded when a batch starts (its own
 * chunk), not at `import('omnimedia')`, where it was a sixth of what Node compiles (dist/index.js
 * 159 -> 132 KB; about 5.6 ms of a cold import, paired runs at a load of 8, issue 40). The build
 * swaps it in for engine-entry.ts (tsup.config.ts, `esmTwins`). The CommonJS build keeps the
 * static engine-entry.ts: a dynamic import there made esbuild wrap every module in lazy
 * initialisers, which failed "are the types wrong"; a page's build has none (engine-entry.browser.ts).
 */
import type { BatchOptions } from '../options.ts';
import type { BatchResult } from '../schemas/batch.ts';
import type { BatchSource } from './engine.ts';
import type { BatchPorts } from './ports.ts';

/** `runBatch` of engine.ts, loaded at the first step: the same results, errors and cleanup (`yield*` passes `return` and `throw` on). */
export async function* runClientBatch(ports: BatchPorts, jobs: BatchSource, options?: BatchOptions): AsyncGenerator<BatchResult, void, undefined> {
  const { runBatch } = await import('./engine.ts');
  yield* runBatch(ports, jobs, options);
}
