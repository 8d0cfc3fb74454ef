/**
 * The browser twin of node-targets.ts: a page has no file system and no Node streams; it
 * downloads to a `Blob` or a web `WritableStream`. Browser builds use this module instead
 * (see tsup.config.ts).
 */
import { ValidationError } from '../errors.ts';

function notInBrowser(): never {
  throw new ValidationError([{ path: 'to', message: 'a file path or a Node Writable works only in Node, Deno or Bun; omit `to` for a Blob, or give a WritableStream' }]);
}

/** Before any request: a path or a Node Writable is refused at once. */
export async function checkTarget(to: unknown): Promise<void> {
  if (typeof to === 'string' || (to !== undefined && !(to instanceof WritableStream))) notInBrowser();
}

export async function toNodeWritable(): Promise<void> {
  notInBrowser();
}

export async function toPath(): Promise<string> {
  notInBrowser();
}

export async function settleStaged(): Promise<void> {
  // Nothing is ever staged in a browser.
}

// Types only (erased from the build): the same shapes as the Node module's, never filled here.
export type { PathTarget, Placement, Staged } from './node-targets.ts';
