// The client checks requests with plain rules and reads answers without zod: zod loads only
// for whoever imports omnimedia/schemas. Statically (no module of the main entry imports it) and
// at run time (a resolve hook records every module a whole flow of the client resolves).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { http, HttpResponse } from 'msw';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { OmniMedia, ValidationError } from '../../src/index.ts';
import { BASE_URL, useMsw } from '../helpers/msw.ts';

const server = useMsw();
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The repo's own Node 24 (type stripping, module.registerHooks), whichever Node runs vitest.
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const FROM_SRC = fileURLToPath(new URL('../helpers/examples-resolve.ts', import.meta.url));
const RECORD = fileURLToPath(new URL('../otel/fixtures/resolutions.mjs', import.meta.url));
const FLOW = fileURLToPath(new URL('./fixtures/flow.ts', import.meta.url));

function runFlow(mode: 'client' | 'schemas'): Promise<{ stdout: string; resolved: string[] }> {
  return new Promise((done, reject) => {
    execFile(NODE, ['--import', FROM_SRC, '--import', RECORD, FLOW, mode], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stdout}\n${stderr}`));
      const line = stdout.split('\n').find((l) => l.startsWith('RESOLVED '));
      done({ stdout, resolved: JSON.parse(line?.slice('RESOLVED '.length) ?? '[]') as string[] });
    });
  });
}

const zodModules = (resolved: string[]) => resolved.filter((r) => /(^|\/)zod(\/|$)|node_modules\/zod\//.test(r));

/** Modules a file imports for their values (type-only imports and `import()` excluded). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      const bindings = node.importClause?.namedBindings;
      const allTypes =
        !node.importClause?.name && bindings && ts.isNamedImports(bindings) && bindings.elements.every((e) => e.isTypeOnly);
      if (!allTypes) out.push((node.moduleSpecifier as ts.StringLiteral).text);
    }
    if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier) {
      const clause = node.exportClause;
      const allTypes = clause && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly);
      if (!allTypes) out.push((node.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** Every package the main entry loads at import, following relative value imports. */
function packagesLoadedAtImport(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of valueImports(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  };
  visit(entry);
  return packages;
}

describe('zod-free client', () => {
  it("no module of 'omnimedia' or 'omnimedia/tasks' imports zod (nor ky)", () => {
    for (const entry of ['index.ts', 'tasks.ts']) {
      const packages = [...packagesLoadedAtImport(resolve(SRC, entry))];
      expect(packages.filter((name) => name.startsWith('zod') || name === 'ky')).toEqual([]);
    }
  });

  it('a whole flow (every submission refused locally, then sent; upload, wait, callback, download) resolves no zod module', { timeout: 70_000 }, async () => {
    const { stdout, resolved } = await runFlow('client');
    expect(stdout).toMatch(/flow done: refused prompt,size \| image \| seconds \| input_video.upload_id; completed, completed, callback 200, \d+ bytes, upload ok/);
    expect(resolved.some((r) => r.includes('/src/index.ts'))).toBe(true);
    expect(zodModules(resolved)).toEqual([]);
  });

  it('importing omnimedia/schemas resolves zod (the hook sees it when it loads)', { timeout: 70_000 }, async () => {
    const { resolved } = await runFlow('schemas');
    expect(zodModules(resolved).length).toBeGreaterThan(0);
  });

  it.each([
    ['', 'must not be empty'],
    [undefined, 'is required'],
    [42, 'must be a string'],
    ['.', 'must not be "." or ".."'],
    ['..', 'must not be "." or ".."'],
  ])('tasks.retrieve(%j) fails locally, naming the rule', async (taskId, message) => {
    let requests = 0;
    server.use(http.get(`${BASE_URL}/v1/tasks/*`, () => (requests++, HttpResponse.json({}))));
    const client = new OmniMedia({ baseURL: BASE_URL });
    for (const call of [
      () => client.tasks.retrieve(taskId as string),
      () => client.tasks.wait(taskId as string),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues).toEqual([{ path: '', message }]);
    }
    expect(requests).toBe(0);
  });
});
