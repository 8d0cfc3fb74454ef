/** Links of a cause chain walked at most: a cycle or a pathological chain ends here. */
const MAX_DEPTH = 8;

/**
 * The first value `pick` returns for an error or one of its causes (`error.cause`,
 * `error.cause.cause`...), else `undefined`. Fetch wraps the socket's error in a
 * `TypeError('fetch failed')`, which a `fetch` given in the options may wrap again: the code
 * sits at the bottom.
 */
export function findInCauses<T>(error: unknown, pick: (link: { code?: unknown; message?: unknown }) => T | undefined): T | undefined {
  for (let link: unknown = error, depth = 0; link && typeof link === 'object' && depth < MAX_DEPTH; depth++) {
    const found = pick(link as { code?: unknown; message?: unknown });
    if (found !== undefined) return found;
    link = (link as { cause?: unknown }).cause;
  }
  return undefined;
}
