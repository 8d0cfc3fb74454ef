/**
 * The browser twin of node-io.ts: a page runs no Node server, so `nodeHandler` has nothing to
 * read or answer there. Browser builds use this module instead (see tsup.config.ts).
 */
import { OmniMediaError } from '../errors.ts';
import type { CallbackBody } from './parse-callback.ts';

function noNodeServer(): never {
  throw new OmniMediaError('callbacks.nodeHandler needs a Node server; this is the browser build (use callbacks.handler)');
}

export async function nodeBody(): Promise<CallbackBody> {
  noNodeServer();
}

export function writeNodeAnswer(): void {
  noNodeServer();
}
