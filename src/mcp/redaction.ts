import type { OmniMedia } from 'omnimedia';
import { createRedactor } from '../internal/redact.ts';

/**
 * The key scrubbed from everything the server sends (tool results, task statuses, progress
 * messages) by the SDK's one redactor, in every form an echo may write it: the SDK's errors
 * never hold the key, but a service's answer is passed on as data, and a hostile or echoing one
 * could hold it.
 */
export type Scrub = <T>(value: T) => T;

/** A scrubber of `client`'s key (and of callback tokens and URL credentials). */
export function keyScrubber(client: OmniMedia): Scrub {
  // The key is the client's own (its HTTP layer holds it); read here, in the one place.
  const redactor = createRedactor([client.http.apiKey]);
  return <T>(value: T) => redactor.data(value) as T;
}
