// Every subpath the package exports is where a reader looks for it: in the API reference
// (typedoc.json's entry points; each entry's `@module` names the subpath, which titles its
// pages) and in the README's "What to import from where" table. `omnimedia/react` had no API
// page, and the table left out /react, /mcp and /bullmq.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { read, ROOT } from '../helpers/docs.ts';

/** Each subpath of package.json's exports map, as `omnimedia/...`, with its source (tsconfig's paths). */
function subpaths(): Map<string, string> {
  const { compilerOptions } = ts.parseConfigFileTextToJson('tsconfig.json', read('tsconfig.json')).config as {
    compilerOptions: { paths: Record<string, [string]> };
  };
  const exportsMap = (JSON.parse(read('package.json')) as { exports: Record<string, unknown> }).exports;
  const out = new Map<string, string>();
  for (const key of Object.keys(exportsMap)) {
    if (key === './package.json') continue;
    const name = key === '.' ? 'omnimedia' : `omnimedia/${key.slice(2)}`;
    out.set(name, compilerOptions.paths[name]?.[0]?.replace(/^\.\//, '') ?? `(tsconfig.json has no path for ${name})`);
  }
  return out;
}

describe('every subpath of the exports map', () => {
  it('has its pages in the API reference: an entry point of typedoc.json whose @module is its name', () => {
    const entryPoints = (JSON.parse(read('typedoc.json')) as { entryPoints: string[] }).entryPoints;
    const problems: string[] = [];
    for (const [name, source] of subpaths()) {
      if (!entryPoints.includes(source)) problems.push(`${name} (${source}): not an entry point of typedoc.json, so no API page`);
      else if (!new RegExp(`@module ${name}\\s`).test(readFileSync(`${ROOT}${source}`, 'utf8'))) problems.push(`${name} (${source}): no "@module ${name}" tag`);
    }
    expect(problems).toEqual([]);
    expect([...entryPoints].sort()).toEqual([...subpaths().values()].sort());
  });

  it("is in the README's import table, and the table names nothing else", () => {
    const readme = read('README.md');
    const start = readme.indexOf('**What to import from where.**');
    expect(start).toBeGreaterThan(-1);
    const table = readme.slice(start).split('\n\n')[1]!;
    const listed = table
      .split('\n')
      .slice(2)
      .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!))
      .map((name) => (name.startsWith('/') ? `omnimedia${name}` : name));
    expect(listed.sort()).toEqual([...subpaths().keys()].sort());
  });
});
