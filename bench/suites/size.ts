// What a browser user ships: esbuild --bundle --minify --platform=browser, then gzip -9.
// Deterministic (same dist/, same esbuild), so CI checks the budgets: `node bench/suites/size.ts --check`.
// For scale, the same measure of other SDKs, installed into a temp dir at bench time (not deps).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { browserTwins } from '../../tsup.config.ts';
import type { BenchTable } from '../run.ts';
import { SIZE_TABLE_PAGE, statedSizes } from './stated-sizes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KiB = 1024;

/**
 * Targets, in KB (1,000 bytes) of gzip -9 (issue 40):
 * - client: every resource method of `OmniMedia` referenced (`export *` of the main entry):
 *   @fal-ai/client's 21.0 KB;
 * - tasks: a page that follows tasks with `omnimedia/tasks` (retrieve, wait and watch):
 *   @runwayml/sdk's 10.9 KB, its whole SDK;
 * - ai-sdk: the AI SDK provider's own code (`omnimedia/ai-sdk`, the client it imports left
 *   out): an adapter on the client stays thin (4.0 KB when it was written).
 * Bundlers targeting a browser pick the `browser` build (Node-only and server-only code left out).
 */
export const BUDGETS = { client: 21, tasks: 10.9, 'ai-sdk': 5 } as const;

/**
 * What CI enforces: a target once it is met; until then the measured size, rounded up by at
 * most 0.1 KB, so that no byte comes back unnoticed. What each remaining KB buys: the closing
 * note of issue 40 (the callback handlers, the token checks and the rules' JSON Schema left the
 * page: 30.9 -> 28.8 KB, then 29.1 with issue 39's live-page fixes (a delay in every retry path, named
 * stream states), 29.0 once the batch's file saving and the building of an upload's body left
 * the builds that have no use for them (omnimedia/tasks 16.1 -> 16.0), then 29.2 / 16.2 with
 * the one redaction of every error's message and cause chain (+0.12 KB each), then 29.3 with
 * the exchange racing its phases without a listener each (+0.1 KB for about 7 µs less a call;
 * a page's build copies every answer, so the answer check does not ship to it: +0.00 KB for
 * omnimedia/tasks); the task client's parts are the waiting layer, the transport and the
 * answer reader, all of which a page runs).
 */
export const CEILINGS: Record<keyof typeof BUDGETS, number> = { client: 29.3, tasks: 16.2, 'ai-sdk': BUDGETS['ai-sdk'] };
const KB = 1000;

export const ENTRIES = {
  /** Everything the package exports: the whole client, errors, schemas, helpers. */
  client: `export * from 'omnimedia';`,
  /** A keyless page that follows a task: retrieve, wait and watch. */
  tasks: `import { TasksClient } from 'omnimedia/tasks';
const tasks = new TasksClient({ baseURL: location.origin });
export const retrieve = (id) => tasks.retrieve(id);
export const wait = (id, onProgress) => tasks.wait(id, { onProgress });
export const watch = (id) => tasks.watch(id);`,
  /** The provider alone: by path, since its import of 'omnimedia' is left out (see EXTERNAL). */
  'ai-sdk': `export * from './dist/ai-sdk.js';`,
} as const;

/**
 * The bundles that must hold no zod: the client checks requests with plain rules and reads
 * answers without zod (zod/mini was 7.7 KB gzip of the whole client); only
 * `omnimedia/schemas` loads it. `--check` fails when zod comes back.
 */
const ZOD_FREE: (keyof typeof ENTRIES)[] = ['client', 'tasks'];

/** What an entry's measure leaves out: the provider reaches the client by its package name. */
const EXTERNAL: Partial<Record<keyof typeof ENTRIES, string[]>> = { 'ai-sdk': ['omnimedia', '@ai-sdk/provider'] };

const LABELS: Record<keyof typeof ENTRIES, string> = {
  client: 'omnimedia (whole client)',
  tasks: 'omnimedia/tasks (retrieve, wait, watch)',
  'ai-sdk': 'omnimedia/ai-sdk (its own code)',
};

export async function gzipSize(
  contents: string,
  resolveDir: string,
  external: string[] = [],
): Promise<{ min: number; gz: number; byPackage: Map<string, number> }> {
  const result = await build({
    metafile: true,
    external,
    stdin: { contents, resolveDir, loader: 'js' },
    // The package as users get it (dist/, through the exports map and its `browser` condition),
    // not the sources the repo's tsconfig paths point at.
    tsconfigRaw: {},
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  // Minified bytes each package contributes (the metafile's bytesInOutput).
  const byPackage = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? 'omnimedia';
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  return { min: code.byteLength, gz: gzipSync(code, { level: 9 }).byteLength, byPackage };
}

const kib = (bytes: number) => (bytes / KiB).toFixed(1);
const kb = (bytes: number) => (bytes / KB).toFixed(1);

// Pinned so the comparison does not drift between runs.
const OTHERS: { name: string; spec: string; entry: string }[] = [
  { name: 'openai', spec: 'openai@6', entry: `export * from 'openai';` },
  { name: '@fal-ai/client', spec: '@fal-ai/client@1', entry: `export * from '@fal-ai/client';` },
  { name: '@runwayml/sdk', spec: '@runwayml/sdk@4', entry: `export * from '@runwayml/sdk';` },
  { name: 'ky alone', spec: 'ky@2', entry: `export * from 'ky';` },
];

async function measureOthers(): Promise<(string | number)[][]> {
  const dir = join(tmpdir(), 'omnimedia-size-bench');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) execFileSync('npm', ['init', '-y'], { cwd: dir, stdio: 'ignore' });
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...OTHERS.map((o) => o.spec)], {
      cwd: dir,
      stdio: 'ignore',
    });
  } catch {
    return [['(others not measured: npm install failed)', '', '', '']];
  }
  const rows: (string | number)[][] = [];
  for (const other of OTHERS) {
    const { min, gz } = await gzipSize(other.entry, dir);
    rows.push([other.name, kb(min), kb(gz), '']);
  }
  return rows;
}

/**
 * The whole client by source folder: the same bundle built from src/ (the browser twins swapped
 * in, as tsup's browser build does), each module's minified bytes from esbuild's metafile. The
 * gzip column shares the bundle's gzip size out by minified bytes: an estimate (gzip works on
 * the whole file), good for finding what to look at.
 */
export async function byModule(): Promise<BenchTable> {
  const result = await build({
    entryPoints: [join(ROOT, 'src/index.ts')],
    plugins: [browserTwins],
    tsconfigRaw: {},
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    outdir: join(tmpdir(), 'omnimedia-size-modules'),
  });
  const code = result.outputFiles[0]!.contents;
  const gz = gzipSync(code, { level: 9 }).byteLength;
  const groups = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const path = relative(ROOT, join(ROOT, file));
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? path.replace(/^src\/([^/]+)\/.*$/, 'src/$1/');
      groups.set(name, (groups.get(name) ?? 0) + bytesInOutput);
    }
  }
  return {
    title: `The whole client by source folder (built from src/: ${kb(code.byteLength)} KB minified, ${kb(gz)} KB gzip -9)`,
    columns: ['folder or package', 'minified KB', 'share', '≈ gzip KB'],
    rows: [...groups]
      .sort((a, b) => b[1] - a[1])
      .map(([name, bytes]) => [name, kb(bytes), `${((100 * bytes) / code.byteLength).toFixed(1)}%`, kb((gz * bytes) / code.byteLength)]),
    notes: ['≈ gzip: the bundle\'s gzip size shared out by minified bytes (an estimate).'],
  };
}

export async function measureOwn(): Promise<
  { name: keyof typeof ENTRIES; min: number; gz: number; byPackage: Map<string, number> }[]
> {
  const out = [];
  for (const name of Object.keys(ENTRIES) as (keyof typeof ENTRIES)[]) {
    out.push({ name, ...(await gzipSize(ENTRIES[name], ROOT, EXTERNAL[name])) });
  }
  return out;
}

export default async function size(): Promise<BenchTable[]> {
  const own = await measureOwn();
  const rows: (string | number)[][] = own.map(({ name, min, gz }) => [
    LABELS[name],
    kb(min),
    `${kb(gz)} (${gz.toLocaleString('en-US')} B)`,
    `${gz <= BUDGETS[name] * KB ? 'met' : 'OVER'} (≤ ${BUDGETS[name]} KB; CI ceiling ${CEILINGS[name]} KB)`,
  ]);
  rows.push(...(await measureOthers()));
  return [
    {
      title: 'Browser bundle size (esbuild --bundle --minify --platform=browser, KB = 1,000 bytes)',
      columns: ['bundle', 'minified KB', 'gzip -9 KB', 'target'],
      rows,
      notes: ['Each row bundles `export * from <pkg>` unless named otherwise; dependencies included.'],
    },
    await byModule(),
  ];
}

// `node bench/suites/size.ts --check`: fail when a bundle grows past its CI ceiling, when zod
// comes back into a bundle that must hold none, or when the runtimes guide's size table is more than
// 0.1 KB off the measurement (a stale figure misleads as much as a wrong one).
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--check')) {
  let failed = false;
  const stated = statedSizes(readFileSync(join(ROOT, SIZE_TABLE_PAGE), 'utf8'));
  for (const { name, gz, byPackage } of await measureOwn()) {
    const figure = stated[name];
    if (figure === undefined || Math.abs(figure * KB - gz) > 100) {
      failed = true;
      console.log(`${SIZE_TABLE_PAGE} ${name}: the table says ${figure ?? 'nothing'} KB, measured ${(gz / KB).toFixed(1)} KB; update "Size and load time"`);
    }
    const ok = gz <= CEILINGS[name] * KB;
    failed ||= !ok;
    console.log(
      `${ok ? 'ok  ' : 'OVER'} ${name}: ${gz.toLocaleString('en-US')} B gzip -9 (CI ceiling ${CEILINGS[name]} KB, target ${BUDGETS[name]} KB)`,
    );
    if (ZOD_FREE.includes(name) && byPackage.has('zod')) {
      failed = true;
      console.log(`ZOD  ${name}: bundles zod (${kib(byPackage.get('zod')!)} KiB minified); only omnimedia/schemas may load it`);
    }
  }
  if (failed) process.exit(1);
}
