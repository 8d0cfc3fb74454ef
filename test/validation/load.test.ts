import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { http, HttpResponse } from 'msw';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { OmniMedia, ValidationError } from '../../src/index.ts';
import { loadValidation } from '../../src/validation/load.ts';
import { BASE_URL, useMsw } from '../helpers/msw.ts';

const server = useMsw();
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

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

describe('lazy validation', () => {
  it("importing 'omnimedia' loads neither zod nor ky (both load at first use)", () => {
    const packages = [...packagesLoadedAtImport(resolve(SRC, 'index.ts'))];
    expect(packages.filter((name) => name.startsWith('zod') || name === 'ky')).toEqual([]);
  });

  it('loads the validation module once and shares it', async () => {
    const [a, b] = await Promise.all([loadValidation(), loadValidation()]);
    expect(a).toBe(b);
    expect(typeof a.ImageGenerateParamsSchema).toBe('object');
  });

  it.each([
    ['', 'must not be empty'],
    [undefined, 'is required'],
    [42, 'must be a string'],
    ['.', 'must not be "." or ".."'],
    ['..', 'must not be "." or ".."'],
  ])('tasks.retrieve(%j) fails locally with the zod-equivalent issue', async (taskId, message) => {
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
