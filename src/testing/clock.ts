// The mock's sense of time. `Date.now` and `setTimeout` are looked up on globalThis at every
// call, never captured at import, so vitest's fake timers (installed after the import) drive
// task progress and callback retries.

/** ms since the epoch, by whatever clock is installed now. */
export function now(): number {
  return globalThis.Date.now();
}

/** Unix seconds, as the service writes timestamps. */
export function nowSeconds(): number {
  return Math.floor(now() / 1000);
}

/**
 * Run `fn` after `ms`; returns the cancel function. The timer does not keep a Node process
 * alive (a forgotten mock must not hang a test run).
 */
export function schedule(fn: () => void, ms: number): () => void {
  const timer = globalThis.setTimeout(fn, Math.max(0, ms)) as unknown as { unref?: () => void };
  if (typeof timer === 'object' && timer !== null && typeof timer.unref === 'function') timer.unref();
  return () => globalThis.clearTimeout(timer as unknown as ReturnType<typeof setTimeout>);
}
