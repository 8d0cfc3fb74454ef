import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  // testing and testing-msw are the mock service (omnimedia/testing, omnimedia/testing/msw); the
  // main entry never imports them. msw stays external: it is an optional peer dependency.
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', 'testing-msw': 'src/testing/msw.ts', schemas: 'src/schemas/index.ts' },
  external: ['msw'],
  // @internal members (the client's HTTP layer, resource plumbing) stay out of the public types.
  dts: { compilerOptions: { stripInternal: true } },
  sourcemap: true,
  target: 'node22',
  platform: 'neutral',
  treeshake: true,
};

export default defineConfig([
  // The mock's HTTP server (@hono/node-server, and hono which it imports) is bundled into the
  // testing entries, so users of omnimedia/testing install nothing more.
  { ...shared, format: 'esm', clean: true, noExternal: ['@hono/node-server', 'hono'] },
  {
    ...shared,
    format: 'cjs',
    // ky and p-retry are ESM-only and Node 22.0-22.11 cannot require() an ES module, so the
    // CJS build carries its own copy of them (and of p-retry's is-network-error). The ESM build
    // keeps them as imports, so a user's bundler dedupes them.
    noExternal: ['ky', 'p-retry', 'is-network-error', '@hono/node-server', 'hono'],
    // tsup's rollup tree-shaking pass hoists every require() to the top of the file, which would
    // load zod at require('omnimedia'); esbuild's own output keeps it inside the lazy validation
    // module, loaded at the first validation, as in the ESM build.
    treeshake: false,
  },
  {
    // The `omnimedia` bin: its own entry, so the library bundles do not grow by a byte. It
    // imports the library by its package name (kept external), so it runs on dist/index.js
    // through the package's self-reference and uses only the public API.
    entry: { cli: 'src/cli/index.ts' },
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    external: ['omnimedia', 'omnimedia/testing'],
  },
]);
