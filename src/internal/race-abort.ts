import { isThenable } from './thenable.ts';

/**
 * `pending`, or `reason()` the moment `signal` aborts (at once if it already has): whatever
 * `pending` does after that no longer matters, and its rejection is handled. What makes an
 * abort or a deadline end a call at once, even while a socket or a shared store hangs.
 */
export function raceAbort<T>(pending: T | PromiseLike<T>, signal: AbortSignal, reason: () => unknown = () => signal.reason): Promise<T> {
  const settled = Promise.resolve(pending);
  if (signal.aborted) {
    settled.catch(() => {});
    return Promise.reject(reason());
  }
  // A value already there (an in-memory store's) has nothing to race: no listener per call.
  if (!isThenable(pending)) return settled;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    settled.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
