// The proxy in Cloudflare's runtime: a Worker bundled as wrangler bundles one (esbuild, the
// workerd, worker and browser conditions, one ES module) and run in workerd through Miniflare
// (no nodejs_compat; `cf: false`, so that it fetches nothing from the internet), listening on a
// free loopback port. `omnimedia/proxy` is the source tree's, or, with OMNIMEDIA_WORKERD_FROM
// set to a project that installed the packed tarball (test/package/run.sh), that tarball's.
import type { Readable } from 'node:stream';
import { copyFile, mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { Log, LogLevel, Miniflare } from 'miniflare';

const SOURCE_PROXY = fileURLToPath(new URL('../../src/proxy/index.ts', import.meta.url));
/** The consumer project whose installed `omnimedia/proxy` the Workers are built from, if any. */
export const WORKERD_FROM = process.env.OMNIMEDIA_WORKERD_FROM;

/** A Worker running in workerd. */
export interface RunningWorker {
  url: string;
  port: number;
  /** What the Worker wrote with console.* (the proxy's logger), one line each. */
  logs: string[];
  close: () => Promise<void>;
}

/** esbuild's options for a Worker, as wrangler's: one ES module, the worker conditions, no node: built-ins. */
export const WORKER_BUILD = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  target: 'es2022',
  write: false,
  metafile: true,
  logLevel: 'silent',
} as const satisfies BuildOptions;

/** One ES module of `entry` and everything it imports, as wrangler builds a Worker. */
export async function bundleWorker(entry: string): Promise<string> {
  // From the tarball's project, the entry is copied there: resolved from the repo, the package
  // name would find the repo's own dist/ (a package may import itself by name).
  if (WORKERD_FROM) {
    const copy = join(WORKERD_FROM, 'workers', basename(entry));
    await mkdir(dirname(copy), { recursive: true });
    await copyFile(entry, copy);
    entry = copy;
  }
  const result = await build({
    ...WORKER_BUILD,
    entryPoints: [entry],
    // Not the repo's tsconfig paths (which name src/): the source tree's, or the tarball's install.
    tsconfigRaw: '{}',
    ...(WORKERD_FROM ? {} : { alias: { 'omnimedia/proxy': SOURCE_PROXY } }),
  });
  const inputs = Object.keys(result.metafile.inputs);
  const from = WORKERD_FROM ? 'node_modules/omnimedia/dist/' : 'src/proxy/';
  if (!inputs.some((input) => input.includes(from))) throw new Error(`the Worker was not built from ${from}: ${inputs.join(', ')}`);
  return result.outputFiles[0]!.text;
}

function lines(stream: Readable, into: string[]): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    into.push(...parts.filter((line) => line.trim() !== ''));
  });
}

/** Run `script` (a bundled Worker) in workerd with these bindings, on a free loopback port. */
export async function startWorker(script: string, bindings: Record<string, string>): Promise<RunningWorker> {
  const logs: string[] = [];
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2026-07-01',
    bindings,
    cf: false,
    host: '127.0.0.1',
    port: 0,
    log: new Log(LogLevel.NONE),
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      lines(stdout, logs);
      lines(stderr, logs);
    },
  });
  const url = await mf.ready;
  return { url: url.origin, port: Number(url.port), logs, close: () => mf.dispose() };
}

/** The Workers recipe, examples/proxy-cloudflare/worker.ts, bundled. */
export const recipeWorker = () => bundleWorker(fileURLToPath(new URL('../../examples/proxy-cloudflare/worker.ts', import.meta.url)));
