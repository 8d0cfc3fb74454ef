import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import MagicString from 'magic-string';
import { defineConfig, type Options } from 'tsup';

/** Replaces each module that has a `<name>.<kind>.ts` twin beside it with the twin. */
const twins = (kind: string): Plugin => ({
  name: `${kind}-twins`,
  setup(build) {
    build.onResolve({ filter: /^\.{1,2}\/.*\.ts$/ }, (args) => {
      const twin = resolve(dirname(args.importer), args.path).replace(/\.ts$/, `.${kind}.ts`);
      return existsSync(twin) ? { path: twin } : undefined;
    });
  },
});

/**
 * Browser builds (the `browser` condition of the exports map): each module with a
 * `<name>.browser.ts` twin beside it is replaced by the twin, which keeps Node-only code (file
 * paths, streamed upload bodies, Node download targets, the Node request adapter) out of a
 * page's bundle. Measured: -1.2 KiB gzip of the whole client.
 */
export const browserTwins = twins('browser');

/**
 * The ESM build of the main entry: each module with a `<name>.esm.ts` twin beside it is replaced
 * by the twin, which loads what most imports never run when it is first used (the batch engine:
 * src/batch/engine-entry.esm.ts). Not the CommonJS build: see that file.
 */
export const esmTwins = twins('esm');

/**
 * One set of error classes, whichever entry threw: every entry but the main one takes them from
 * the main one, by the package's own name (its self-reference), in both module formats. Without
 * it, tsup's CommonJS output (not split into chunks) gave each entry its own copy of errors.ts,
 * and a page's bundler (the `browser` condition) took `omnimedia` from the browser build but
 * `omnimedia/otel`, `/proxy` and `/redis` from the ESM build, whose errors chunk is another
 * file: a `ValidationError` they threw was not `instanceof` the app's. The browser build
 * (`omnimedia` and `omnimedia/tasks`) shares them through a chunk. test/package/flows/identity-flow.mjs
 * checks all three on the tarball. No byte moves in the browser build.
 */
const ERRORS = resolve('src/errors.ts');
const errorsFromMainEntry: Plugin = {
  name: 'errors-from-main-entry',
  setup(build) {
    build.onResolve({ filter: /\/errors\.ts$/ }, (args) =>
      resolve(dirname(args.importer), args.path) === ERRORS ? { path: 'omnimedia', external: true, sideEffects: false } : undefined,
    );
  },
};

/**
 * What the Node builds' lazy imports of `node:*` modules (and the mock's server) say to a
 * bundler: leave me alone. Webpack (Next.js) and Vite would otherwise try to resolve an
 * `import(specifier)` they cannot see through and warn or fail.
 */
export const IGNORE_COMMENTS = '/* @vite-ignore */ /* webpackIgnore: true */ ';

/**
 * Puts the bundler comments back into every dynamic `import()` of a built file but those of its
 * own chunks (`import("./chunk-....js")`, which a bundler must follow): esbuild's whitespace
 * minifying drops every comment inside `import()`, and the sources' imports of `node:*` modules
 * carry them (src/uploads/node-files.ts, src/internal/jsonl-file.ts, ...). The source map is
 * carried through (magic-string; tsup chains it onto esbuild's).
 */
export const keepImportComments = {
  name: 'keep-import-comments',
  renderChunk(code: string, info: { path: string; map?: unknown }) {
    const out = new MagicString(code);
    for (const match of code.matchAll(/\bimport\((?!\s*["'`]\.{1,2}\/)(?!\s*\/\*)/g)) out.appendLeft(match.index + match[0].length, IGNORE_COMMENTS);
    if (!out.hasChanged()) return undefined;
    // A build without source maps (a test's, say) has none to carry through.
    const changed = out.toString();
    return info.map ? { code: changed, map: out.generateMap({ hires: true, source: info.path, includeContent: false }) } : { code: changed };
  },
};

const shared: Options = {
  // testing and testing-msw are the mock service (omnimedia/testing, omnimedia/testing/msw); the
  // main entry never imports them. msw stays external: it is an optional peer dependency.
  // ai-sdk (omnimedia/ai-sdk, the AI SDK provider) imports the library by its package name, kept
  // external as the CLI does: in both builds its client and errors are the very classes the app
  // imports from 'omnimedia', and no other entry shares a byte with it. @ai-sdk/provider (an
  // optional peer) gives it types only.
  entry: {
    index: 'src/index.ts',
    tasks: 'src/tasks.ts',
    redis: 'src/redis/index.ts',
    proxy: 'src/proxy/index.ts',
    otel: 'src/otel/index.ts',
    testing: 'src/testing/index.ts',
    'testing-msw': 'src/testing/msw.ts',
    schemas: 'src/schemas/index.ts',
    'ai-sdk': 'src/ai-sdk/index.ts',
    resources: 'src/resources/index.ts',
    coordination: 'src/coordination/index.ts',
    react: 'src/react/index.ts',
    mcp: 'src/mcp/index.ts',
    bullmq: 'src/bullmq/index.ts',
  },
  // @opentelemetry/api is an optional peer of omnimedia/otel: the app's own copy, never bundled.
  // mcp (omnimedia/mcp) takes the client and its errors by the package's name, as ai-sdk does,
  // and @modelcontextprotocol/sdk (an optional peer, every subpath) is the app's own. react is an
  // optional peer of omnimedia/react, the app's own copy; that entry reaches the client by the
  // package's name (omnimedia/tasks), as the AI SDK provider does. bullmq (an optional peer of
  // omnimedia/bullmq, which takes the client by its name too) likewise.
  external: ['msw', 'omnimedia', '@ai-sdk/provider', '@opentelemetry/api', /^@modelcontextprotocol\/sdk(\/|$)/, 'react', 'bullmq'],
  // @internal members (the client's HTTP layer, resource plumbing) stay out of the public types.
  dts: { compilerOptions: { stripInternal: true } },
  sourcemap: true,
  target: 'node22',
  platform: 'neutral',
  treeshake: true,
};

/**
 * The ESM builds are whitespace- and syntax-minified (names kept: stack traces and error
 * classes read as in the sources, and the source maps map back): Node reads, decodes and
 * compiles a third less at a cold `import('omnimedia')` (dist/index.js 233 -> 160 KB; +47 ->
 * +7 ms over `node -e 0`, medians of 20 paired runs at a load of 20 on 2 cores, issue 40).
 * The comments a bundler needs in the lazy imports are put back. The CommonJS builds are
 * minified less (below).
 */
const minifiedForNode: Options = { minifyWhitespace: true, minifySyntax: true, plugins: [keepImportComments] };

/**
 * The CommonJS builds: whitespace-minified only (comments out too; names and statements kept).
 * Syntax-minified, esbuild merges the helpers' declarations into one `var a=...,b=...`, and
 * are-the-types-wrong no longer reads the CommonJS exports (a false "incorrect default export").
 * dist/index.cjs 235 -> 168 KB (the CommonJS files a third smaller); require('omnimedia') within the
 * noise of before (paired CPU times, -1.8 to +2.1 ms at load 4-10): kept for the package's size.
 */
const whitespaceMinifiedForNode: Options = { minifyWhitespace: true, plugins: [keepImportComments] };

/** The entries but the main one. */
const others = Object.fromEntries(Object.entries(shared.entry as Record<string, string>).filter(([name]) => name !== 'index'));

export default defineConfig([
  // Each module format in two builds (the main entry; the others, whose errors are the main
  // entry's: see errorsFromMainEntry) and the declarations of every entry in one more, so that
  // shared types stay in shared files.
  { ...shared, ...minifiedForNode, entry: { index: 'src/index.ts' }, format: 'esm', clean: true, dts: false, esbuildPlugins: [esmTwins] },
  {
    ...shared,
    ...minifiedForNode,
    entry: others,
    format: 'esm',
    dts: false,
    // The mock's HTTP server (@hono/node-server, and hono which it imports) is bundled into the
    // testing entries, so users of omnimedia/testing install nothing more.
    noExternal: ['@hono/node-server', 'hono'],
    esbuildPlugins: [errorsFromMainEntry],
  },
  { ...shared, format: 'esm', dts: { only: true, compilerOptions: { stripInternal: true } } },
  {
    ...shared,
    ...whitespaceMinifiedForNode,
    entry: { index: 'src/index.ts' },
    format: 'cjs',
    dts: false,
    // esbuild's own tree shaking, as for the other entries below.
    treeshake: false,
  },
  {
    ...shared,
    ...whitespaceMinifiedForNode,
    entry: others,
    format: 'cjs',
    dts: false,
    noExternal: ['@hono/node-server', 'hono'],
    // tsup's rollup tree-shaking pass hoists every require() to the top of the file, which would
    // load node:http, node:http2 and node:stream at require('omnimedia/testing'); esbuild's own
    // output keeps them inside the mock's server module, loaded when a server starts, as in the
    // ESM build. (It once kept zod out of require('omnimedia'); the client no longer uses zod.)
    treeshake: false,
    esbuildPlugins: [errorsFromMainEntry],
  },
  { ...shared, format: 'cjs', dts: { only: true, compilerOptions: { stripInternal: true } } },
  {
    // What a page's bundler picks (the `browser` condition): the same entries with the browser
    // twins; the types are the ESM build's.
    entry: { 'index.browser': 'src/index.ts', 'tasks.browser': 'src/tasks.ts' },
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: true,
    treeshake: true,
    esbuildPlugins: [browserTwins],
  },
  {
    // The `omnimedia` bin: its own entry, so the library bundles do not grow by a byte. It
    // imports the library by its package name (kept external), so it runs on dist/index.js
    // through the package's self-reference. Beyond the public API it bundles one pure module
    // of the library, so that it keeps no second copy of a rule: the option checker
    // (option-checks.ts); errors stay the main entry's (errorsFromMainEntry), so what the
    // checker throws is the app's `ValidationError`. Its terminal-safe printer is its own
    // (cli/terminal-text.ts), and it reads times as the SDK's results give them.
    entry: { cli: 'src/cli/index.ts' },
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    // `omnimedia mcp` loads omnimedia/mcp and the MCP SDK only when it runs; `omnimedia studio`
    // its server (src/studio/, a chunk of the bin) on omnimedia/proxy, and its page is built by
    // scripts/build-studio.ts into dist/studio/.
    external: ['omnimedia', 'omnimedia/testing', 'omnimedia/mcp', 'omnimedia/proxy', /^@modelcontextprotocol\/sdk(\/|$)/],
    esbuildPlugins: [errorsFromMainEntry],
  },
]);
