/**
 * `client.batch()`'s engine where it runs (Node, Deno, Bun); a page's build takes the browser
 * twin (engine-loader.browser.ts), which has none. A static import: a dynamic one made esbuild
 * wrap every module of the CommonJS build in lazy initialisers, and the root's CommonJS types
 * then failed "are the types wrong" (an incorrect default export).
 */
import type { BatchOptions } from '../options.ts';
import type { BatchResult } from '../schemas/batch.ts';
import { runBatch, type BatchSource } from './engine.ts';
import type { BatchPorts } from './ports.ts';

/** The batch's result lines. */
export async function* runClientBatch(ports: BatchPorts, jobs: BatchSource, options: BatchOptions | undefined): AsyncGenerator<BatchResult, void, undefined> {
  yield* runBatch(ports, jobs, options);
}
