import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  entry: { index: 'src/index.ts', schemas: 'src/schemas/index.ts' },
  // @internal members (the client's HTTP layer, resource plumbing) stay out of the public types.
  dts: { compilerOptions: { stripInternal: true } },
  sourcemap: true,
  target: 'node22',
  platform: 'neutral',
  treeshake: true,
};

export default defineConfig([
  { ...shared, format: 'esm', clean: true },
  {
    ...shared,
    format: 'cjs',
    // ky and p-retry are ESM-only and Node 22.0-22.11 cannot require() an ES module, so the
    // CJS build carries its own copy of them (and of p-retry's is-network-error). The ESM build
    // keeps them as imports, so a user's bundler dedupes them.
    noExternal: ['ky', 'p-retry', 'is-network-error'],
    // tsup's rollup tree-shaking pass hoists every require() to the top of the file, which would
    // load zod at require('omnimedia'); esbuild's own output keeps it inside the lazy validation
    // module, loaded at the first validation, as in the ESM build.
    treeshake: false,
  },
]);
