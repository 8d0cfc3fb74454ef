// The mock's sense of time. `Date.now` and `setTimeout` are looked up on globalThis at every
// call, never captured at import, so vitest's fake timers (installed after the import) drive
// task progress and callback retries.
import { serviceTime } from '../schemas/time.ts';

/** ms since the epoch, by whatever clock is installed now. */
export function now(): number {
  return globalThis.Date.now();
}

/** Now as the service writes times (whole epoch seconds: schemas/time.ts, the SDK's reading too). */
export function nowSeconds(): number {
  return serviceTime(now());
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
