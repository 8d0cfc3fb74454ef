// Browser builds replace each module that has a `<name>.browser.ts` twin with the twin (see
// tsup.config.ts). A twin must offer every value its Node module exports, or the browser build
// would break where the Node one works.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
}

/** Names a module exports (values and types), from its syntax. */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const node of source.statements) {
    const exported = ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause))
      names.push(...node.exportClause.elements.map((e) => e.name.text));
    else if (exported && ts.isVariableStatement(node)) names.push(...node.declarationList.declarations.map((d) => (d.name as ts.Identifier).text));
    else if (exported && (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && node.name)
      names.push(node.name.text);
  }
  return names.sort();
}

const twins = files(SRC).filter((file) => file.endsWith('.browser.ts'));

type Target = string | { [condition: string]: Target };
/** What a bundler resolves `subpath` of the package to under `conditions`: the first listed condition it knows, in the map's order. */
function resolveExport(subpath: string, conditions: readonly string[]): string | undefined {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, Target> };
  let target: Target | undefined = pkg.exports[subpath];
  while (target !== undefined && typeof target !== 'string') {
    const map: Record<string, Target> = target;
    const picked = Object.keys(map).find((condition) => condition === 'default' || conditions.includes(condition));
    target = picked === undefined ? undefined : map[picked];
  }
  return target;
}

describe('browser twins', () => {
  it('there are twins (uploads from paths, streamed bodies, Node download targets, the Node request adapter)', () => {
    expect(twins.length).toBeGreaterThanOrEqual(4);
  });

  it.each(twins.map((twin) => [twin.slice(SRC.length), twin]))('%s exports what its Node module does', (_name, twin) => {
    const node = twin.replace(/\.browser\.ts$/, '.ts');
    expect(exportedNames(twin)).toEqual(exportedNames(node));
  });

  // A worker is a server: it receives callbacks (client.callbacks.handler in a Cloudflare Worker or
  // a Next.js edge route), so it must not get the page's build, which leaves them out. Wrangler
  // resolves with workerd, worker and browser; Next.js's edge runtime with edge-light, worker and
  // browser (test/proxy/workerd.ts bundles as wrangler does).
  it.each([
    ['a Cloudflare Worker (wrangler)', ['workerd', 'worker', 'browser', 'import'], ''],
    ["Next.js's edge runtime", ['edge-light', 'worker', 'browser', 'import'], ''],
    ['a page', ['browser', 'import'], '.browser'],
  ] as const)('%s gets the %s build of omnimedia and omnimedia/tasks', (_where, conditions, build) => {
    expect(resolveExport('.', conditions)).toBe(`./dist/index${build}.js`);
    expect(resolveExport('./tasks', conditions)).toBe(`./dist/tasks${build}.js`);
  });
});
