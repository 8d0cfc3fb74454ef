// Cold start: a fresh Node process that imports the package, against one that imports nothing.
// Runs are interleaved so background load hits every case alike, and paired: each case's
// difference from the `node -e 0` of the same run, the median of those differences reported
// (a busy machine moves both sides of a pair). Node 24 (the repo's own). Target (issue 40):
// import('omnimedia') within +5 ms of `node -e 0`, median of 20 paired runs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchTable } from '../run.ts';
import { median } from '../lib/stats.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUNS = Number(process.env.IMPORT_TIME_RUNS ?? 20);
const TARGET_MS = 5;

const CASES: [label: string, code: string][] = [
  ['node -e 0', ''],
  ['node --input-type=module -e 0', 'void 0'],
  ["import('omnimedia')", "await import('omnimedia')"],
  ["import('omnimedia'), new OmniMedia()", "const { OmniMedia } = await import('omnimedia'); new OmniMedia({ baseURL: 'http://127.0.0.1:1' })"],
  // The first submission's check of its input: the client's own rules, nothing more to load
  // (it once loaded zod here, +45 ms).
  [
    'import + first validation',
    "const { OmniMedia } = await import('omnimedia'); await new OmniMedia({ baseURL: 'http://127.0.0.1:1', apiKey: 'k' }).images.generate({ model: 'm', prompt: '' }).catch(() => {})",
  ],
  ["require('omnimedia')", "require('omnimedia')"],
  ["import('ky')", "await import('ky')"],
  ["import('zod/mini')", "await import('zod/mini')"],
  ["import('zod')", "await import('zod')"],
];

function once(code: string): number {
  const isRequire = code.startsWith('require');
  const args = code === '' ? ['-e', '0'] : isRequire ? ['-e', code] : ['--input-type=module', '-e', code];
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${code}: ${result.stderr.toString()}`);
  return elapsed;
}

/** Which modules a cold `import('omnimedia')` loads from node_modules (it should not be zod). */
function loadedPackages(): string {
  // The ESM loader has no public list of what it loaded; a resolve hook records every URL.
  const hook = `data:text/javascript,${encodeURIComponent(
    "import { registerHooks } from 'node:module'; const seen = new Set(); registerHooks({ resolve(s, c, next) { const r = next(s, c); const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url); if (m) seen.add(m[1]); return r; } }); process.on('exit', () => console.log([...seen].sort().join(' ') || '(none)'));",
  )}`;
  const result = spawnSync(process.execPath, ['--import', hook, '--input-type=module', '-e', "await import('omnimedia')"], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return result.stdout.trim() || result.stderr.trim();
}

export default async function importTime(): Promise<BenchTable> {
  const times = new Map<string, number[]>(CASES.map(([label]) => [label, []]));
  for (const [, code] of CASES) once(code); // warm the file system cache
  for (let run = 0; run < RUNS; run++) for (const [label, code] of CASES) times.get(label)!.push(once(code));
  const base = times.get('node -e 0')!;
  const rows = CASES.map(([label]) => {
    const own = times.get(label)!;
    const delta = median(own.map((ms, run) => ms - base[run]!));
    const verdict = label === "import('omnimedia')" ? (delta <= TARGET_MS ? ' met' : ' over') : '';
    const signed = `${delta >= 0 ? '+' : ''}${delta.toFixed(1)}`;
    return [label, median(own).toFixed(1), label === 'node -e 0' ? '' : `${signed}${verdict}`];
  });
  return {
    title: `Cold import on Node ${process.versions.node} (${RUNS} paired runs of fresh processes, ms)`,
    columns: ['what', 'median ms', 'vs node -e 0 (median of paired differences)'],
    rows,
    notes: [
      `Target: import('omnimedia') within +${TARGET_MS} ms of node -e 0 (the median of the ${RUNS} per-run differences).`,
      `Packages a cold import('omnimedia') loads: ${loadedPackages()}`,
    ],
  };
}
