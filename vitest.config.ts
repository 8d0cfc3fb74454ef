import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      'omnimedia/testing/msw': fileURLToPath(new URL('./src/testing/msw.ts', import.meta.url)),
      'omnimedia/testing': fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      'omnimedia/otel': fileURLToPath(new URL('./src/otel/index.ts', import.meta.url)),
      'omnimedia/ai-sdk': fileURLToPath(new URL('./src/ai-sdk/index.ts', import.meta.url)),
      'omnimedia/redis': fileURLToPath(new URL('./src/redis/index.ts', import.meta.url)),
      'omnimedia/proxy': fileURLToPath(new URL('./src/proxy/index.ts', import.meta.url)),
      'omnimedia/tasks': fileURLToPath(new URL('./src/tasks.ts', import.meta.url)),
      'omnimedia/resources': fileURLToPath(new URL('./src/resources/index.ts', import.meta.url)),
      'omnimedia/coordination': fileURLToPath(new URL('./src/coordination/index.ts', import.meta.url)),
      'omnimedia/schemas': fileURLToPath(new URL('./src/schemas/index.ts', import.meta.url)),
      omnimedia: fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Tests talk to MSW or to servers on loopback only; anything else is a bug.
    unstubGlobals: true,
    testTimeout: 20_000,
    // Some transport faults appear only after a full GC (test/transport/hostile-network.test.ts).
    execArgv: ['--expose-gc'],
  },
});
