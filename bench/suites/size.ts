// What a browser user ships: esbuild --bundle --minify --platform=browser, then gzip -9.
// Deterministic (same dist/, same esbuild), so CI checks the budgets: `node bench/suites/size.ts --check`.
// For scale, the same measure of other SDKs, installed into a temp dir at bench time (not deps).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import type { BenchTable } from '../run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KiB = 1024;

/**
 * Targets, in KB (1,000 bytes) of gzip -9, and what CI enforces: the targets themselves.
 * - client: every resource method of `OmniMedia` referenced (`export *` of the main entry);
 * - tasks: a page that follows tasks with `omnimedia/tasks` (retrieve, wait and watch);
 * - ai-sdk: the AI SDK provider's own code (`omnimedia/ai-sdk`, the client it imports left
 *   out): an adapter on the client stays thin (4.0 KB when it was written).
 * Bundlers targeting a browser pick the `browser` build (Node-only code left out).
 */
export const BUDGETS = { client: 30, tasks: 18, 'ai-sdk': 5 } as const;
export const CEILINGS = BUDGETS;
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
    `${gz <= BUDGETS[name] * KB ? 'met' : 'OVER'} (≤ ${BUDGETS[name]} KB)`,
  ]);
  rows.push(...(await measureOthers()));
  // What the budgets would take: the same bundles with a dependency left out (made external).
  const without: (string | number)[][] = [];
  for (const [label, external] of [
    ['zod (own code only)', ['zod', 'zod/*']],
  ] as const) {
    const row: (string | number)[] = [`without ${label}`];
    for (const name of ['client', 'tasks'] as const) row.push(kb((await gzipSize(ENTRIES[name], ROOT, [...external])).gz));
    without.push(row);
  }
  const whole = own.find((o) => o.name === 'client')!;
  const parts = [...whole.byPackage].sort((a, b) => b[1] - a[1]);
  return [
    {
      title: 'Browser bundle size (esbuild --bundle --minify --platform=browser, KB = 1,000 bytes)',
      columns: ['bundle', 'minified KB', 'gzip -9 KB', 'target'],
      rows,
      notes: ['Each row bundles `export * from <pkg>` unless named otherwise; dependencies included.'],
    },
    {
      title: 'The same bundles without zod (gzip -9 KB): our own code',
      columns: ['bundle', 'whole client', 'omnimedia/tasks'],
      rows: without,
    },
    {
      title: 'What the whole-client bundle is made of (minified KiB, before gzip)',
      columns: ['package', 'minified', 'share'],
      rows: parts.map(([name, bytes]) => [name, kib(bytes), `${((100 * bytes) / whole.min).toFixed(0)}%`]),
    },
  ];
}

// `node bench/suites/size.ts --check`: fail when a bundle grows past its CI ceiling.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--check')) {
  let failed = false;
  for (const { name, gz } of await measureOwn()) {
    const ok = gz <= CEILINGS[name] * KB;
    failed ||= !ok;
    console.log(
      `${ok ? 'ok  ' : 'OVER'} ${name}: ${gz.toLocaleString('en-US')} B gzip -9 (target and CI ceiling ${CEILINGS[name]} KB)`,
    );
  }
  if (failed) process.exit(1);
}
