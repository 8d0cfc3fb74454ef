// `npm run bench`: every suite in bench/suites/ prints one table. Suites measure the built
// package (dist/) against raw fetch in the same run, so ratios hold on any machine.
// Run one suite: `npm run bench -- overhead`.
import { readdir } from 'node:fs/promises';

export interface BenchTable {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  notes?: string[];
}

function printTable(table: BenchTable): void {
  const cells = [table.columns, ...table.rows.map((r) => r.map(String))];
  const widths = table.columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`\n### ${table.title}\n`);
  console.log(line(table.columns));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of cells.slice(1)) console.log(line(row));
  for (const note of table.notes ?? []) console.log(`\n${note}`);
}

const only = process.argv.slice(2);
const dir = new URL('./suites/', import.meta.url);
const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).sort();
for (const file of files) {
  const name = file.replace(/\.ts$/, '');
  if (only.length && !only.includes(name)) continue;
  const suite = (await import(new URL(file, dir).href)) as { default: () => Promise<BenchTable | BenchTable[]> };
  const result = await suite.default();
  for (const table of Array.isArray(result) ? result : [result]) printTable(table);
}
