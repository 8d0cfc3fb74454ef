// Every example of the README and the guides is a complete program. Each ```ts block is
// type-checked as a module of its own under --strict with module/moduleResolution nodenext,
// against the package's entries (their sources, by the package's names) and the packages a
// reader's app would install (express, hono, ioredis, redis, ai...), with NO declarations added:
// what a block uses it imports or declares, as a reader who copies it into a file has to. A
// ```ts fragment block is not checked, and says so on its first line. Each ```ts runnable block
// also runs, against the mock service, in a directory holding the files it names.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockServer } from 'omnimedia/testing';
import { codeBlocks, documentationFiles, read, ROOT, type CodeBlock } from '../helpers/docs.ts';

const blocks = documentationFiles().flatMap((path) => codeBlocks(path));
const typescript = blocks.filter((b) => /^ts\b/.test(b.info));
const fragments = typescript.filter((b) => b.info.split(/\s+/).includes('fragment'));
const checked = typescript.filter((b) => !fragments.includes(b));
const runnable = checked.filter((b) => b.info.split(/\s+/).includes('runnable'));
/** `docs/waiting.md:12` as a file name: `docs-waiting-md-12.ts`. */
const fileName = (block: CodeBlock) => `${block.where.replace(/[^\w]+/g, '-')}.ts`;

function typeErrors(list: CodeBlock[]): string[] {
  const paths = (ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')).config as {
    compilerOptions: { paths: Record<string, string[]> };
  }).compilerOptions.paths;
  // `export {}` makes a block without imports a module too, as a reader's .ts file under nodenext is.
  const files = new Map(list.map((block) => [join(ROOT, 'test/docs/snippets', fileName(block)), `${block.code}\nexport {};\n`] as const));
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
    const source = program.getSourceFile(join(ROOT, 'test/docs/snippets', fileName(block)))!;
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

  it("the README's Quick start is plain JavaScript too, as it says (saved as quickstart.mjs, run by node)", () => {
    const readme = read('README.md');
    const start = readme.indexOf('`node quickstart.mjs`:');
    const block = codeBlocks('README.md').find((b) => /^ts\b/.test(b.info) && readme.indexOf(b.code) > start);
    expect(start).toBeGreaterThan(-1);
    const dir = mkdtempSync(join(tmpdir(), 'quickstart-'));
    try {
      writeFileSync(join(dir, 'quickstart.mjs'), block!.code);
      execFileSync(process.execPath, ['--check', join(dir, 'quickstart.mjs')], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('say so when they are fragments', () => {
    for (const block of fragments) expect(block.code.split('\n')[0], block.where).toMatch(/^\/\/ A fragment\b.*: .+/);
    expect(fragments.length).toBeLessThanOrEqual(2);
  });

  describe('run, the blocks marked runnable, against the mock service', async () => {
    const server = await startMockServer({ durations: { pending: 20, image: 50, imageEdit: 50, video: 100, videoEdit: 100 } });
    const dir = mkdtempSync(join(tmpdir(), 'docs-snippets-'));
    const cwd = process.cwd();
    const env = { ...process.env };
    afterAll(async () => {
      process.chdir(cwd);
      process.env = env;
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    });
    // The files the blocks name, in the directory they run in.
    for (const name of ['photo.png', 'cat.png', 'sofa.png', 'lamp.png', 'mask.png']) copyFileSync(join(ROOT, 'test/fixtures/tiny.png'), join(dir, name));
    copyFileSync(join(ROOT, 'test/fixtures/tiny.mp4'), join(dir, 'clip.mp4'));

    it.each(runnable.map((b) => [b.where, b] as const))('%s', async (_where, block) => {
      const file = join(dir, fileName(block));
      writeFileSync(file, `${block.code}\nexport {};\n`);
      process.chdir(dir);
      process.env.OMNIMEDIA_BASE_URL = server.url;
      process.env.OMNIMEDIA_API_KEY = 'sk-mock';
      try {
        await import(pathToFileURL(file).href);
      } finally {
        process.chdir(cwd);
      }
    }, 60_000);
  });
});
