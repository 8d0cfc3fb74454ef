import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Node's compile cache (Node 22.1+) for the run's workers and every child a test starts
 * (test/helpers/child-env.ts): a child that runs src/ through Node's type stripping (the CLI,
 * a fleet instance, a batch) reuses what the children before it stripped and compiled (the CLI
 * from src: 0.83 s of CPU to start, 0.30 s from the cache). Node checks each entry against the
 * source's hash, so a changed file is compiled again.
 */
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('./node_modules/.cache/node-compile-cache', import.meta.url));

const CLUSTER = 'test/redis/cluster-coordination.test.ts';
const CLUSTER_BATCH = 'test/redis/cluster-batch-journal.test.ts';
const CLUSTER_FLEET = 'test/redis/cluster-fleet.test.ts';
const FLEET = 'test/redis/fleet-*.test.ts';

/**
 * Tests whose answer is the same on every Node: the TypeScript checker, esbuild and text read
 * from files (the docs' snippets type-checked, every export documented, the architecture, the
 * entries' names, bundles' contents). `npm test` runs them (project 'static'); CI's runs on
 * Node 22 and 26 leave them out (.ci/run): about a fifth of the suite's CPU, twice.
 */
const STATIC = [
  'test/docs/**/*.test.ts',
  'test/architecture.test.ts',
  'test/index.test.ts',
  'test/browser-twins.test.ts',
  'test/tsup-config.test.ts',
  'test/internal/port-call-sites.test.ts',
  'test/ai-sdk/isolation.test.ts',
  'test/proxy/edge-bundle.test.ts',
];

/**
 * Files each in a process of its own (project 'isolated'): one that mocks a module (`vi.mock`
 * needs a module graph of its own), and the AI SDK's. Twice, an AI SDK test on fake time never
 * ended when its files shared workers with the rest (test/ai-sdk/retries.test.ts on CI,
 * image-model.test.ts at a load of 12: 'still pending after 120000 ms of fake time'), and never
 * among themselves (3 runs sharing one worker beside three burners); the cause is not found.
 */
const ISOLATED = ['test/mcp/tool-schemas.test.ts', 'test/ai-sdk/*.test.ts'];

/**
 * What CI's reruns on Node 22 and 26 leave out besides projects 'static' and 'fleet' (.ci/run
 * says why) and, with `OMNIMEDIA_RERUN=1`:
 * the page tests, where Chromium runs the code under test (the Node side, the proxy and the
 * studio's server, has tests of its own that do rerun), and the property tests, which draw
 * thousands of inputs through the same parsing and checking code whose every path a plain test
 * of the rerun already takes. About a sixth of the suite's time, twice.
 */
const SAME_ON_EVERY_NODE = ['test/**/*.property.test.ts', 'test/**/*.fuzz.test.ts'];
const RERUN = process.env.OMNIMEDIA_RERUN === '1';

/**
 * The page tests drive Debian's Chromium (`CHROMIUM_PATH` overrides /usr/bin/chromium). Without
 * it they are left out with one line saying how to run them, as the Redis tests are without
 * redis-server; `OMNIMEDIA_REQUIRE_CHROMIUM=1` (CI) makes a missing Chromium a failure.
 */
const CHROMIUM = ['test/studio/{page,layout,restart,workflows}.test.ts', 'test/react/chromium.test.ts', 'test/integration/studio-cli.test.ts'];

/**
 * Project 'processes' (`npm run test:processes`, with project 'fleet'): the tests whose subject
 * is more than one process, on real time: the CLI's bin, the examples and a batch run as a user
 * runs them, killed mid-run, the proxy's fleet, the MCP server over stdio, the harness that owns
 * those children, and the Chromium pages. Most of their CPU is in the children they start (130 s
 * of `npm test`'s 340 s with the fleet, as one group: 18 files), so `npm test`, the run before every
 * commit, leaves them to a command of their own, as it does the Redis Cluster (issue 41: what only
 * real time can show, in a group of its own). CI runs both.
 */
const PROCESSES = [
  'test/integration/{cli,examples,callbacks-examples,batch-crash,batch-ownership,harness}.test.ts',
  'test/proxy/events-fleet.test.ts',
  'test/mcp/stdio.test.ts',
  ...CHROMIUM,
];
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WITHOUT_CHROMIUM = existsSync(CHROMIUM_PATH) ? [] : CHROMIUM;
const RERUN_EXCLUDES = RERUN ? [...SAME_ON_EVERY_NODE, ...CHROMIUM] : [];
if (WITHOUT_CHROMIUM.length > 0 && !RERUN) {
  if (process.env.OMNIMEDIA_REQUIRE_CHROMIUM === '1') throw new Error(`${CHROMIUM_PATH} is missing, and OMNIMEDIA_REQUIRE_CHROMIUM=1 requires it (apt-get install chromium)`);
  console.warn(`page tests in Chromium skipped: no ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH, then npm run test:processes)`);
}

/**
 * Within a group, files on real time start first (child processes, servers on loopback): on a
 * clean clone vitest knows no durations and starts the largest files first, which put the
 * fleet files (4 lines each, 70 s each then) last, alone, at the end of the run.
 */
const REAL_TIME_FIRST = [/\/test\/redis\/fleet-/, /\/test\/redis\//, /\/test\/integration\//];

/**
 * `OMNIMEDIA_TEST_SHUFFLE=<seed>`: the files in an order drawn from the seed instead (vitest's
 * own `--sequence.shuffle` gives way to a custom sequencer). Files share their worker, so a run
 * in another order shows a file that leans on what an earlier one left (CONTRIBUTING).
 */
const SHUFFLE_SEED = process.env.OMNIMEDIA_TEST_SHUFFLE;

/** The files in an order drawn from `seed` (a linear congruential generator: the same seed, the same order). */
function shuffled<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

class RealTimeFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    if (SHUFFLE_SEED !== undefined) return shuffled(files, Number(SHUFFLE_SEED));
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const found = REAL_TIME_FIRST.findIndex((pattern) => pattern.test(spec.moduleId.replaceAll('\\', '/')));
      return found === -1 ? REAL_TIME_FIRST.length : found;
    };
    return sorted.map((spec, index) => ({ spec, index })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index).map(({ spec }) => spec);
  }
}

export default defineConfig({
  resolve: {
    alias: {
      'omnimedia/testing/msw': fileURLToPath(new URL('./src/testing/msw.ts', import.meta.url)),
      'omnimedia/testing': fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      'omnimedia/otel': fileURLToPath(new URL('./src/otel/index.ts', import.meta.url)),
      'omnimedia/ai-sdk': fileURLToPath(new URL('./src/ai-sdk/index.ts', import.meta.url)),
      'omnimedia/mcp': fileURLToPath(new URL('./src/mcp/index.ts', import.meta.url)),
      'omnimedia/redis': fileURLToPath(new URL('./src/redis/index.ts', import.meta.url)),
      'omnimedia/proxy': fileURLToPath(new URL('./src/proxy/index.ts', import.meta.url)),
      'omnimedia/tasks': fileURLToPath(new URL('./src/tasks.ts', import.meta.url)),
      'omnimedia/resources': fileURLToPath(new URL('./src/resources/index.ts', import.meta.url)),
      'omnimedia/coordination': fileURLToPath(new URL('./src/coordination/index.ts', import.meta.url)),
      'omnimedia/bullmq': fileURLToPath(new URL('./src/bullmq/index.ts', import.meta.url)),
      'omnimedia/react': fileURLToPath(new URL('./src/react/index.ts', import.meta.url)),
      'omnimedia/schemas': fileURLToPath(new URL('./src/schemas/index.ts', import.meta.url)),
      omnimedia: fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    environment: 'node',
    // Tests talk to MSW or to servers on loopback only; anything else is a bug.
    unstubGlobals: true,
    unstubEnvs: true,
    // Hang guards, not bounds: a test's bounds are its assertions, taken from the contract. At
    // a load of 25 on two cores a 3 MiB loopback download took 22.6 s and a fuzz property 31.5 s
    // (both under 2 s idle): a 20 s guard failed tests that were only slow.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A stalled body that only a full GC shows (test/integration/hostile-network.test.ts calls gc()).
    execArgv: ['--expose-gc'],
    // After each file: real timers and the working directory back, and a file that left a
    // timer global replaced fails (a later file sharing the worker would wait on a fake clock).
    setupFiles: ['test/helpers/between-files.ts'],
    // Six files at once on two cores: a fifth of the files spend most of their time waiting (a
    // real Redis, child processes, the mock's task times, Chromium), and with four workers three
    // of them at once left a core idle (429 s of CPU in 291 s of wall, 74 % of two cores; with
    // six, 446 s in 261 s, 85 %). vitest's default on two cores is one worker (cores - 1).
    // OMNIMEDIA_TEST_WORKERS overrides.
    maxWorkers: Number(process.env.OMNIMEDIA_TEST_WORKERS ?? 6),
    sequence: { sequencer: RealTimeFirst },
    // `npm test` runs projects redis, suite, isolated and static side by side, as one group, and
    // `npm run test:processes` runs processes and fleet so: every test of the redis and fleet
    // projects asserts by construction or on the contract's figures now, and passed three runs in
    // a row beside three CPU burners (issue 41), so they no longer wait for the CPU-bound rest to
    // be gone (the three groups in turn cost ~90 s of wall, 352 s idle before). The Redis
    // Cluster tests (six redis-server processes) are a CI step of their own, two groups in turn:
    // `npm run test:cluster` (README, "Development").
    projects: [
      { extends: true, test: { name: 'redis', include: ['test/redis/*.test.ts'], exclude: [...configDefaults.exclude, CLUSTER, CLUSTER_BATCH, CLUSTER_FLEET, FLEET], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'fleet', include: [FLEET], sequence: { groupOrder: 0 } } },
      // The files of a worker share its module graph (no isolation): src/ and its dependencies
      // load once per worker, not once per file (npm test: 331 s of CPU against 446 s isolated).
      // What a file changes of the process is put back after it, and a file that leaves the
      // timers replaced fails (test/helpers/between-files.ts; unstubGlobals, unstubEnvs); the
      // suite passes in shuffled orders (OMNIMEDIA_TEST_SHUFFLE), so no file leans on another's
      // leftovers. A file that mocks a module runs in 'isolated'.
      { extends: true, test: { name: 'suite', isolate: false, include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/redis/**', ...STATIC, ...ISOLATED, ...PROCESSES, ...RERUN_EXCLUDES], sequence: { groupOrder: 0 } } },
      // Its files share their worker's modules, as in 'suite' (where they ran until issue 41).
      { extends: true, test: { name: 'processes', isolate: false, include: PROCESSES, exclude: [...configDefaults.exclude, ...WITHOUT_CHROMIUM, ...RERUN_EXCLUDES], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, exclude: [...configDefaults.exclude, ...STATIC, ...RERUN_EXCLUDES], sequence: { groupOrder: 0 } } },
      // Beside 'suite'. CPU only (a TypeScript program of all src/ takes 5 s idle and took 31 s
      // at a load of 12): the timeout guards against a hang, it is no bound on this machine's
      // speed (20 s failed test/index.test.ts beside seven other runs). Its files share the
      // TypeScript compiler their worker loaded once (no isolation: they read files and check
      // them, and restore what they change: runnable-blocks.test.ts's directory and environment).
      { extends: true, test: { name: 'static', isolate: false, include: STATIC, testTimeout: 180_000, sequence: { groupOrder: 0 } } },
      // The cluster's ports in process, then its fleets of child processes: side by side, the
      // fleets' CPU made the in-process tests miss their real-time bounds (a budget's retry
      // time 340 ms for > 900, a wake-up not heard: two failures in a CI run, none alone).
      { extends: true, test: { name: 'cluster', include: [CLUSTER], sequence: { groupOrder: 3 } } },
      { extends: true, test: { name: 'cluster-fleet', include: [CLUSTER_FLEET], sequence: { groupOrder: 4 } } },
      // A batch's journal on a cluster of its own, after the others (a second cluster beside them is 12 redis-servers).
      { extends: true, test: { name: 'cluster-batch', include: [CLUSTER_BATCH], sequence: { groupOrder: 5 } } },
    ],
  },
});
