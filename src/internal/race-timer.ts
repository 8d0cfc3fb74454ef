/**
 * `pending`, or what `onTimeout` returns (or throws) if `pending` has not settled within `ms`.
 * The timer goes either way, and a late rejection of `pending` is handled. The one "this, or
 * give up after ms" of the SDK (a callback body's read timeout, a Redis command's timeout);
 * a plain timer, so fake timers drive it (`AbortSignal.timeout` they do not).
 */
export function raceTimer<T, U>(pending: Promise<T>, ms: number, onTimeout: () => U): Promise<T | U> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<U>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  pending.catch(() => {});
  return Promise.race([pending, timedOut]).finally(() => clearTimeout(timer));
}
