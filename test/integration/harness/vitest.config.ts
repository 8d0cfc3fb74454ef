// The vitest of test/integration/harness.test.ts: this folder's fixtures only, one worker.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { root: import.meta.dirname, include: ['*.fixture.ts'], maxWorkers: 1, teardownTimeout: 5_000 },
});
