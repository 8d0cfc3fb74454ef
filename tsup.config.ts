import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  entry: { index: 'src/index.ts' },
  dts: true,
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
