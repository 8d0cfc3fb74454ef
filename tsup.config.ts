import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';

/**
 * Browser builds (the `browser` condition of the exports map): each module with a
 * `<name>.browser.ts` twin beside it is replaced by the twin, which keeps Node-only code (file
 * paths, streamed upload bodies, Node download targets, the Node request adapter) out of a
 * page's bundle. Measured: -1.2 KiB gzip of the whole client.
 */
export const browserTwins: Plugin = {
  name: 'browser-twins',
  setup(build) {
    build.onResolve({ filter: /^\.{1,2}\/.*\.ts$/ }, (args) => {
      const twin = resolve(dirname(args.importer), args.path).replace(/\.ts$/, '.browser.ts');
      return existsSync(twin) ? { path: twin } : undefined;
    });
  },
};

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

/** The entries but the main one. */
const others = Object.fromEntries(Object.entries(shared.entry as Record<string, string>).filter(([name]) => name !== 'index'));

export default defineConfig([
  // Each module format in two builds (the main entry; the others, whose errors are the main
  // entry's: see errorsFromMainEntry) and the declarations of every entry in one more, so that
  // shared types stay in shared files.
  { ...shared, entry: { index: 'src/index.ts' }, format: 'esm', clean: true, dts: false },
  {
    ...shared,
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
    entry: { index: 'src/index.ts' },
    format: 'cjs',
    dts: false,
    // esbuild's own tree shaking, as for the other entries below.
    treeshake: false,
  },
  {
    ...shared,
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
