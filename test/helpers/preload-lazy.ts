// The SDK loads zod at first use, by dynamic import: real I/O, which fake timers neither
// run nor wait for. Loaded here, before any test of the file, the first request of a fake-timer
// test is as prompt as every later one (vitest.config.ts setupFiles).
import { loadValidation } from '../../src/validation/load.ts';

await loadValidation();
