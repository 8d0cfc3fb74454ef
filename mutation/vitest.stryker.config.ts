// Vitest config for mutation testing (StrykerJS): the unit tests of the mutated modules only,
// no redis/fleet/cluster projects (see CONTRIBUTING.md, "Mutation testing"). Aliases come from the main vitest.config.ts.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../vitest.config.ts';

export const MUTATION_TESTS = [
  'test/waiting/cadence.test.ts',
  'test/internal/bounded-map.test.ts',
  'test/schemas/image-size.test.ts',
  'test/callbacks/token.test.ts',
  'test/transport/retry-policy.test.ts',
  'test/internal/port-call.test.ts',
  'test/internal/port-call-sites.test.ts',
  'test/internal/redact.test.ts',
];

export default defineConfig({
  resolve: base.resolve ?? {},
  // The repository's root, wherever stryker runs this config from (its sandbox is a copy of the repository).
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    environment: 'node',
    unstubGlobals: true,
    testTimeout: 20_000,
    include: MUTATION_TESTS,
  },
});
