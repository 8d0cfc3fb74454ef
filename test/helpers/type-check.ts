// Type-check TypeScript held in memory (documentation's code blocks) as modules of the repo:
// strict, nodenext, the package's names resolved to its sources (tsconfig.json's paths).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The syntactic and semantic diagnostics of each file of `files` (path → source), compiled together. */
export function diagnosticsOf(files: ReadonlyMap<string, string>, extra: ts.CompilerOptions = {}): Map<string, ts.Diagnostic[]> {
  const paths = (ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')).config as {
    compilerOptions: { paths: Record<string, string[]> };
  }).compilerOptions.paths;
  const options: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2024.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    baseUrl: ROOT,
    paths,
    ...extra,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile.call(host, name, language, ...rest) : ts.createSourceFile(name, text, language, true);
  };
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  const program = ts.createProgram([...files.keys()], options, host);
  const out = new Map<string, ts.Diagnostic[]>();
  for (const name of files.keys()) {
    const source = program.getSourceFile(name);
    if (!source) throw new Error(`not compiled: ${name}`);
    out.set(name, [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]);
  }
  return out;
}
