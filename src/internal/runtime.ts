// Runtime probes. Kept free of Node types so the public declarations type-check in a browser
// project without @types/node.

type MaybeProcess = { process?: { env?: Record<string, string | undefined>; versions?: { node?: string } } };

/** An environment variable where `process.env` exists (Node, Bun, Deno's Node compat); else undefined. */
export function readEnv(name: string): string | undefined {
  const value = (globalThis as MaybeProcess).process?.env?.[name]?.trim();
  return value ? value : undefined;
}

/**
 * A page or web worker: somewhere an API key would be visible to the user. Judged by the DOM
 * globals alone, not by the absence of `process` (bundlers polyfill it): a page has `window`
 * and `document`, a worker `importScripts`. Deno 1 has `window` but no `document`.
 */
export function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown };
  return (g.window !== undefined && g.document !== undefined) || typeof g.importScripts === 'function';
}
