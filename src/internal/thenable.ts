/**
 * Whether a store's answer is still to come. The coordination ports take "a value or a promise",
 * and a store written by a user may hand back any thenable: a Promise of another realm (a `vm`
 * context, a worker's polyfill) or a library's. `instanceof Promise` misses those.
 */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
