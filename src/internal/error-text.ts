/**
 * What went wrong, in words: an error's message, else the thrown value as a string; a value
 * that cannot even say that (a throwing getter or `toString`, a Proxy) is `(unreadable)`.
 */
export function errorText(error: unknown): string {
  try {
    return String((error as Error | undefined)?.message ?? error);
  } catch {
    return '(unreadable)';
  }
}

/**
 * A value as a message quotes it: a string, number or boolean as written (a long string cut),
 * anything else by its kind (an object's own `toString` is never called: it may throw, or say
 * anything).
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value.length > 80 ? `${value.slice(0, 80)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** `shown(value)`, a string in double quotes (JSON's escapes): a status as a message quotes it. */
export function shownQuoted(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(shown(value)) : shown(value);
}
