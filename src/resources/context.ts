/**
 * resources/: the thin facades users call (`client.images`, `client.tasks`...). Each method
 * checks its arguments and makes one call into a feature. A resource gets the narrow ports it
 * needs from this context, never the client. Imports everything below it; only client.ts
 * imports resources/ (and index.ts, for their types).
 */
import type { CallbackTokens } from '../callbacks/token.ts';
import type { DeliveryPorts } from '../callbacks/delivery.ts';
import type { SubmissionJournal } from '../coordination/ports.ts';
import type { Telemetry } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';
import type { Uploader } from '../uploads/send.ts';
import type { WaitPorts } from '../waiting/poller.ts';

/** What a client hands its resources. */
export interface ResourceContext {
  http: HttpClient;
  /** The ports every wait goes through: the scheduler, task events, learned durations. */
  waiting: WaitPorts;
  /** Uploads a checked file, through the upload cache when on. */
  upload: Uploader;
  /** The `callbackSecret` tokens, when one is set. */
  callbackTokens: CallbackTokens | undefined;
  /** Accepted submissions, until their result is seen. */
  journal: SubmissionJournal;
  /** What the callback handlers run through. */
  delivery: DeliveryPorts;
  /** Where calls are reported, when the `telemetry` option is set. */
  telemetry?: Telemetry | undefined;
}
