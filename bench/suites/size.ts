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

/** Targets in KiB, gzip -9 (issue 7). Not met yet: see the README's "Size and load time". */
export const BUDGETS = { client: 18, poller: 12 } as const;
/**
 * What CI enforces today, while the targets above are out of reach: the measured size with
 * every feature in plus about 1 KiB, so a regression fails. The hardened transport (the
 * exchange, body caps, the sanitiser on every answer, redaction after parsing, the task id
 * rule) took the whole client from 37.3 to 39.0 KiB and the poller from 36.8 to 38.6 KiB; the
 * option checks, ports and journal of the architecture issue to 40.2 and 39.8 KiB.
 */
export const CEILINGS = { client: 41, poller: 40.5 } as const;

export const ENTRIES = {
  /** Everything the package exports: the whole client, errors, schemas, helpers. */
  client: `export * from 'omnimedia';`,
  /** A keyless page that only waits on a task id. */
  poller: `import { OmniMedia } from 'omnimedia';
export const wait = (baseURL, id) => new OmniMedia({ baseURL }).tasks.wait(id);`,
} as const;

export async function gzipSize(
  contents: string,
  resolveDir: string,
  external: string[] = [],
): Promise<{ min: number; gz: number; byPackage: Map<string, number> }> {
  const result = await build({
    metafile: true,
    external,
    stdin: { contents, resolveDir, loader: 'js' },
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
    rows.push([other.name, kib(min), kib(gz), '']);
  }
  return rows;
}

export async function measureOwn(): Promise<
  { name: keyof typeof ENTRIES; min: number; gz: number; byPackage: Map<string, number> }[]
> {
  const out = [];
  for (const name of Object.keys(ENTRIES) as (keyof typeof ENTRIES)[]) {
    out.push({ name, ...(await gzipSize(ENTRIES[name], ROOT)) });
  }
  return out;
}

export default async function size(): Promise<BenchTable[]> {
  const own = await measureOwn();
  const rows: (string | number)[][] = own.map(({ name, min, gz }) => [
    name === 'client' ? 'omnimedia (whole client)' : 'omnimedia (keyless tasks.wait)',
    kib(min),
    kib(gz),
    `${gz <= BUDGETS[name] * KiB ? 'ok' : 'over'} (target ≤ ${BUDGETS[name]}, CI ceiling ${CEILINGS[name]})`,
  ]);
  rows.push(...(await measureOthers()));
  // What the budgets would take: the same bundles with a dependency left out (made external).
  const without: (string | number)[][] = [];
  for (const [label, external] of [
    ['zod', ['zod', 'zod/*']],
    ['ky', ['ky']],
    ['zod and ky', ['zod', 'zod/*', 'ky']],
    ['zod, ky and p-retry (own code only)', ['zod', 'zod/*', 'ky', 'p-retry', 'is-network-error']],
  ] as const) {
    const row: (string | number)[] = [`without ${label}`];
    for (const name of ['client', 'poller'] as const) row.push(kib((await gzipSize(ENTRIES[name], ROOT, [...external])).gz));
    without.push(row);
  }
  const whole = own.find((o) => o.name === 'client')!;
  const parts = [...whole.byPackage].sort((a, b) => b[1] - a[1]);
  return [
    {
      title: 'Browser bundle size (esbuild --bundle --minify --platform=browser, KiB)',
      columns: ['bundle', 'minified', 'gzip -9', 'budget'],
      rows,
      notes: ['Each row bundles `export * from <pkg>` unless named otherwise; dependencies included.'],
    },
    {
      title: 'The same bundles without a dependency (gzip -9 KiB): what the targets would take',
      columns: ['bundle', 'whole client', 'keyless tasks.wait'],
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
    const ok = gz <= CEILINGS[name] * KiB;
    failed ||= !ok;
    console.log(
      `${ok ? 'ok  ' : 'OVER'} ${name}: ${kib(gz)} KiB gzip -9 (CI ceiling ${CEILINGS[name]} KiB, target ${BUDGETS[name]} KiB)`,
    );
  }
  if (failed) process.exit(1);
}
