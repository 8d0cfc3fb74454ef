import type { OmniMedia } from 'omnimedia';
import { keyForms, redactDeep } from '../internal/logger.ts';

/**
 * The key scrubbed from everything the server sends (tool results, task statuses, progress
 * messages), by the client logger's own redaction, in every form an echo may write it (as is,
 * percent-encoded, base64: `keyForms`, as the proxy does): the SDK's errors never hold the key,
 * but a service's answer is passed on as data, and a hostile or echoing one could hold it.
 */
export type Scrub = <T>(value: T) => T;

/** A scrubber of `client`'s key (nothing to scrub without one). */
export function keyScrubber(client: OmniMedia): Scrub {
  // The key is the client's own (its HTTP layer holds it); read here, in the one place.
  const key = client.http.apiKey;
  const forms = key === undefined ? [] : keyForms(key);
  return <T>(value: T) => forms.reduce((out: unknown, form) => redactDeep(out, form), value) as T;
}
