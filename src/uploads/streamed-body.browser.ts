/**
 * The browser twin of streamed-body.ts: a page cannot stream a request body (Chromium only
 * over HTTP/2), so uploads there send the platform's `FormData` (see body.ts). Browser builds
 * use this module instead (see tsup.config.ts).
 */
import { OmniMediaError } from '../errors.ts';
import type { AttemptBody } from './body.ts';

/** The multipart framing around one file part; see streamed-body.ts. */
export interface Framing {
  prefix: Uint8Array;
  suffix: Uint8Array;
  contentType: string;
}

export function canStreamRequestBodies(): boolean {
  return false;
}

function browserCannotStream(): never {
  throw new OmniMediaError('This build cannot stream an upload body: it is the browser build, which sends FormData.');
}

export async function multipartFraming(): Promise<Framing> {
  browserCannotStream();
}

export async function streamedBody(): Promise<AttemptBody> {
  browserCannotStream();
}
