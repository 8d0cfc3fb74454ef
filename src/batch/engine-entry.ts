/**
 * `client.batch()`'s engine where it runs (Node, Deno, Bun); a page's build takes the browser
 * twin (engine-entry.browser.ts), which has none. Imported statically: a dynamic import made
 * esbuild wrap every module of the CommonJS build in lazy initialisers, and the root's CommonJS
 * types then failed "are the types wrong" (an incorrect default export).
 */
export { runBatch as runClientBatch } from './engine.ts';
