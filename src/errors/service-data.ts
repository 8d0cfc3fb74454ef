// What an error keeps: its message, its cause chain and the service's data (a task) without URL
// credentials (`user:password@`) or callback tokens, so that neither its fields nor
// `util.inspect(error)` nor `JSON.stringify(error)` hold them (issue 39: a result URL's password
// was in the inspected form of `files.download`'s error, through fetch's error in its cause).
// Every `OmniMediaError` passes its message and cause here as it is made; the HTTP client passes
// fetch's error through its own redactor first, which knows the API key. The one redactor
// (internal/redact.ts) does it. Kept small: it is in every page's bundle (about 0.1 KB gzip).
import { createKeylessRedactor, type Redactor } from '../internal/redact.ts';

let keyless: Redactor | undefined;

/**
 * `value` as an error keeps it, `scrub` applied: itself when it holds nothing to remove. Text
 * and data (a task, a string cause) as an error body is, a copy when anything was found; an
 * error (a cause), each link of its chain (8 at most) changed in place (its own fields:
 * `message`, `stack`, a `url`...), its class and `code` kept (the retry policy reads them), a
 * frozen link shadowed by a copy.
 */
export function keptInError<T>(value: T, scrub: Redactor = (keyless ??= createKeylessRedactor()), depth = 0): T {
  let kept = value as Record<string, unknown>;
  try {
    if (!(value instanceof Error)) return scrub.finds(JSON.stringify(value) as string) ? (scrub.data(value) as T) : value;
    if (depth < 8)
      for (const key of ['message', 'stack', ...Object.getOwnPropertyNames(value)]) {
        const was = kept[key];
        const now = keptInError(was, scrub, depth + 1);
        if (now !== was) Object.defineProperty(Object.isFrozen(kept) ? (kept = Object.create(kept) as Record<string, unknown>) : kept, key, { value: now });
      }
  } catch {
    // A field that is a cycle or a BigInt: no data of the service's.
  }
  return kept as T;
}
