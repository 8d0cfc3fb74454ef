// Every example of the README and the guides is a complete program. Each ```ts block is
// type-checked as a module of its own under --strict with module/moduleResolution nodenext,
// against the package's entries (their sources, by the package's names) and the packages a
// reader's app would install (express, hono, ioredis, redis, ai...), with NO declarations added:
// what a block uses it imports or declares, as a reader who copies it into a file has to. A
// ```ts fragment block is not checked, and says so on its first line. Each ```ts runnable block
// also runs (runnable-blocks.test.ts, a file of its own so that its real time, a minute of
// waits on the mock, overlaps the checker's CPU here).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { blockFileName, codeBlocks, documentationFiles, ROOT, type CodeBlock } from '../helpers/docs.ts';
import { runnableBlocks } from '../helpers/runnable.ts';

const blocks = documentationFiles().flatMap((path) => codeBlocks(path));
const typescript = blocks.filter((b) => /^ts\b/.test(b.info));
const fragments = typescript.filter((b) => b.info.split(/\s+/).includes('fragment'));
const checked = typescript.filter((b) => !fragments.includes(b));
const runnable = checked.filter((b) => b.info.split(/\s+/).includes('runnable'));

function typeErrors(list: CodeBlock[]): string[] {
  const paths = (ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')).config as {
    compilerOptions: { paths: Record<string, string[]> };
  }).compilerOptions.paths;
  // `export {}` makes a block without imports a module too, as a reader's .ts file under nodenext is.
  const files = new Map(list.map((block) => [join(ROOT, 'test/docs/snippets', blockFileName(block)), `${block.code}\nexport {};\n`] as const));
  const options: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2024.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    noEmit: true,
    skipLibCheck: true,
    baseUrl: ROOT,
    paths,
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
  const errors: string[] = [];
  for (const block of list) {
    const source = program.getSourceFile(join(ROOT, 'test/docs/snippets', blockFileName(block)))!;
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      const [path, first] = block.where.split(':');
      errors.push(`${path}:${Number(first) + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return errors;
}

describe('the examples of the README and the guides', () => {
  it('are there, runnable ones too', () => {
    expect(typescript.length).toBeGreaterThan(30);
    expect(runnable.length).toBeGreaterThanOrEqual(12);
    expect(runnable.some((b) => b.where.startsWith('README.md:'))).toBe(true);
  });

  it('type-check, each block as its own module, under --strict with nodenext and no added declarations', () => {
    expect(typeErrors(checked)).toEqual([]);
  }, 180_000);

  it('each page says, before its first runnable block, how to run them: the file, the command, the install, the mock, the variables', () => {
    const pages = documentationFiles().map((path) => runnableBlocks(path)).filter((list) => list.length > 0);
    expect(pages.length).toBeGreaterThanOrEqual(9);
    const missing = pages.flat().flatMap(({ block, how }) => ('missing' in how ? [`${block.where}: ${how.missing.join('; ')}`] : []));
    expect(missing).toEqual([]);
  });

  // A .ts file is CommonJS in an `npm init -y` project ("Cannot use import statement outside a
  // module"), and types in a .mjs file are a SyntaxError: only .mts (types) or .mjs (none) run
  // as saved in any project; the command runs under Node 22.18+ (type stripping on).
  it('each runnable block is saved as .mts, or as .mjs when it has no types, and parses as such', () => {
    const bad: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'docs-syntax-'));
    try {
      for (const { block, how } of documentationFiles().flatMap((path) => runnableBlocks(path))) {
        if ('missing' in how) continue;
        if (!/\.m[jt]s$/.test(how.file)) bad.push(`${block.where}: saved as ${how.file}: neither .mts nor .mjs`);
        const file = join(dir, how.file);
        writeFileSync(file, block.code);
        try {
          execFileSync(process.execPath, ['--check', file], { stdio: 'pipe' });
        } catch (error) {
          bad.push(`${block.where}: as ${how.file}: ${String((error as { stderr?: Buffer }).stderr).split('\n').find((l) => /Error/.test(l))}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(bad).toEqual([]);
  }, 120_000); // a node --check per block: about 1 s each on a loaded machine

  it('say so when they are fragments', () => {
    for (const block of fragments) expect(block.code.split('\n')[0], block.where).toMatch(/^\/\/ A fragment\b.*: .+/);
    expect(fragments.length).toBeLessThanOrEqual(2);
  });
});
