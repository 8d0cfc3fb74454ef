// The architecture, enforced: which folder of src/ may import which (value and type imports,
// re-exports and dynamic imports alike), and no source file over 400 lines. The table is the
// one in CONTRIBUTING.md's "Architecture" section.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const MAX_LINES = 400;

/** A module's layer: its folder under src/, or its file name for the files at the root. */
function layerOf(file: string): string {
  const path = relative(SRC, file).replaceAll('\\', '/');
  const [first] = path.split('/');
  if (path.includes('/')) return first as string;
  return path.replace(/\.ts$/, '');
}

const BASE = ['errors', 'internal'];
const OPTIONS = ['options', 'option-checks'];
/** Each layer and the layers it may import besides its own. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  internal: [],
  // schemas for types only: WaitTimeoutError's lastTask is a TaskResult.
  errors: ['internal', 'schemas'],
  schemas: [],
  // The Telemetry port: what the core reports; it imports nothing, and nothing of OpenTelemetry.
  telemetry: [],
  coordination: ['schemas', 'internal'],
  transport: ['telemetry', ...BASE],
  validation: ['schemas', ...BASE],
  options: ['coordination', 'telemetry', 'transport', 'schemas', ...BASE],
  // validation: options are read once, as plain data, by the one reader of caller input.
  'option-checks': ['options', 'coordination', 'telemetry', 'transport', 'validation', 'schemas', ...BASE],
  waiting: [...OPTIONS, 'coordination', 'telemetry', 'transport', 'validation', 'schemas', ...BASE],
  uploads: [...OPTIONS, 'coordination', 'telemetry', 'transport', 'validation', 'schemas', ...BASE],
  // schemas: an output's extension from its first bytes (sniffMediaType).
  downloads: [...OPTIONS, 'telemetry', 'transport', 'schemas', ...BASE],
  callbacks: ['waiting', ...OPTIONS, 'coordination', 'telemetry', 'transport', 'validation', 'schemas', ...BASE],
  // batch/: many tasks (client.batch, the batch command, omnimedia/bullmq); the client's parts reach it as ports.
  batch: ['waiting', 'uploads', ...OPTIONS, 'coordination', 'transport', 'validation', 'schemas', ...BASE],
  resources: ['batch', 'callbacks', 'waiting', 'uploads', 'downloads', ...OPTIONS, 'coordination', 'telemetry', 'transport', 'validation', 'schemas', ...BASE],
  client: ['resources', 'batch', 'callbacks', 'waiting', 'uploads', 'downloads', ...OPTIONS, 'coordination', 'telemetry', 'transport', 'validation', 'schemas', ...BASE],
  // omnimedia/redis: the coordination ports on Redis (task status words from waiting/).
  redis: ['coordination', 'waiting', ...OPTIONS, 'schemas', ...BASE],
  // omnimedia/proxy: a server entry, the page's client's endpoints on the app's server (uploads'
  // rules, sniffing and framing, the SDK's schemas; the rate limits behind a coordination port).
  // Its event streams watch tasks with the client's own wait (waiting/).
  proxy: ['uploads', 'waiting', ...OPTIONS, 'coordination', 'transport', 'validation', 'schemas', ...BASE],
  // omnimedia/otel: the Telemetry port on @opentelemetry/api (its option checker from option-checks).
  otel: ['telemetry', 'option-checks', ...BASE],
  // omnimedia/tasks: a second composition root, of the keyless task client.
  tasks: ['resources', 'waiting', ...OPTIONS, 'coordination', 'telemetry', 'transport', 'validation', 'schemas', ...BASE],
  index: ['client', 'resources', 'batch', 'callbacks', 'waiting', 'uploads', 'downloads', ...OPTIONS, 'coordination', 'telemetry', 'transport', 'validation', 'schemas', ...BASE],
  // The mock service: the spec's rules (schemas), the upload rules and sniffing it shares with the SDK.
  testing: ['schemas', 'uploads', 'internal'],
  // The CLI uses the package's public entries ('omnimedia', 'omnimedia/testing') and, bundled
  // into its bin, the option checker (a pure module: one copy of each rule; errors stay the
  // main entry's, tsup.config.ts). Its terminal-safe printer and its reading of times are its own.
  // studio/: loaded by `omnimedia studio` only (import()), bundled into the bin's own chunk.
  cli: ['option-checks', 'studio'],
  // The studio (`npx omnimedia studio`): its server on the package's public entries by name
  // ('omnimedia', 'omnimedia/proxy', 'omnimedia/testing'); its page (studio/page/, bundled at
  // build time) on 'omnimedia', 'omnimedia/react' and the spec's constants and rules (schemas/).
  studio: ['schemas'],
  // omnimedia/ai-sdk: a thin adapter on the public client ('omnimedia' by its package name).
  'ai-sdk': [],
  // omnimedia/react: useTask on the public task client ('omnimedia/tasks' by its package name).
  react: [],
  // omnimedia/mcp: the public client by its package name, and the request rules (their JSON
  // Schema), the upload rules and the key's redaction, bundled into the entry.
  mcp: ['schemas', 'uploads', 'internal'],
  // omnimedia/bullmq: a processor on the public client ('omnimedia' by its package name), bullmq's UnrecoverableError.
  bullmq: [],
};

/** Every module specifier a file names: imports (value and type), re-exports, `import()`. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      out.push(node.moduleSpecifier.text);
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteral(argument)) out.push(argument.text);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      out.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC);

/**
 * The one module of a layer below that the CLI shares by path, not by a public name: the JSONL
 * file's one reader and repairer (a short write finished or failed, a torn tail cut back), which
 * the batch's journal (batch/) and the CLI's results.jsonl both write with.
 */
const CLI_SHARES = ['internal/jsonl-file.ts'];

describe('architecture', () => {
  it('every layer of src/ is in the table', () => {
    const unknown = [...new Set(files.map(layerOf))].filter((layer) => !(layer in MAY_IMPORT));
    expect(unknown).toEqual([]);
  });

  it('imports point one way: each module imports only the layers the table allows', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const specifier of specifiers(file)) {
        if (!specifier.startsWith('.')) continue; // packages: checked by the bundle and the entries
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(SRC)) {
          // Only the CLI reaches outside src/, for package.json's version.
          if (!(from === 'cli' && target.endsWith('package.json'))) wrong.push(`${relative(SRC, file)} -> ${specifier}`);
          continue;
        }
        const to = layerOf(target);
        if (to !== from && !MAY_IMPORT[from]?.includes(to) && !(from === 'cli' && CLI_SHARES.includes(relative(SRC, target)))) wrong.push(`${relative(SRC, file)} (${from}) -> ${relative(SRC, target)} (${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('only index.ts imports client.ts, not even for a type', () => {
    const importers = files.filter((file) => layerOf(file) !== 'index' && specifiers(file).some((s) => resolve(dirname(file), s) === join(SRC, 'client.ts')));
    expect(importers.map((f) => relative(SRC, f))).toEqual([]);
  });

  it('only omnimedia/otel imports @opentelemetry/*, and the Telemetry port imports nothing', () => {
    const importers = files.filter((file) => specifiers(file).some((s) => s.startsWith('@opentelemetry/')));
    expect([...new Set(importers.map(layerOf))]).toEqual(['otel']);
  });

  it('the CLI imports the library by its package name only', () => {
    const cli = files.filter((file) => layerOf(file) === 'cli');
    const packages = new Set(cli.flatMap(specifiers).filter((s) => s.startsWith('omnimedia')));
    expect([...packages].sort()).toEqual(['omnimedia', 'omnimedia/mcp', 'omnimedia/resources', 'omnimedia/testing']);
  });

  it('the MCP server uses the client by its package name; the MCP SDK is loaded by omnimedia/mcp and by the CLI only when `mcp` runs', () => {
    const mcp = files.filter((file) => layerOf(file) === 'mcp');
    const packages = new Set(mcp.flatMap(specifiers).filter((s) => !s.startsWith('.') && !s.startsWith('node:')));
    expect([...packages].sort()).toEqual([
      '@modelcontextprotocol/sdk/experimental/tasks',
      '@modelcontextprotocol/sdk/server/mcp.js',
      '@modelcontextprotocol/sdk/types.js',
      'omnimedia',
      'omnimedia/resources',
      'zod/mini',
    ]);
    const importers = files.filter((file) => specifiers(file).some((s) => s.startsWith('@modelcontextprotocol/')));
    expect([...new Set(importers.map(layerOf))].sort()).toEqual(['cli', 'mcp']);
    // In the CLI, as values only through import() (the MCP SDK is an optional peer).
    for (const file of importers.filter((f) => layerOf(f) === 'cli')) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const staticValues = source.statements.filter(
        (node) => ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(@modelcontextprotocol\/|omnimedia\/mcp)/.test(node.moduleSpecifier.text) && !node.importClause?.isTypeOnly,
      );
      expect(staticValues.map((node) => node.getText()), relative(SRC, file)).toEqual([]);
    }
  });

  it('the AI SDK provider uses the client by its package name, and @ai-sdk/provider for types only', () => {
    const provider = files.filter((file) => layerOf(file) === 'ai-sdk');
    const packages = new Set(provider.flatMap(specifiers).filter((s) => !s.startsWith('.')));
    expect([...packages].sort()).toEqual(['@ai-sdk/provider', 'omnimedia', 'omnimedia/resources', 'omnimedia/schemas']);
    // Its error classes are the client's (the same classes as the app's `instanceof`), and
    // @ai-sdk/provider stays an optional peer: nothing of it is loaded at run time.
    const valueImports = provider.flatMap((file) => {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      return source.statements.filter(
        (node) => ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === '@ai-sdk/provider' && !node.importClause?.isTypeOnly,
      );
    });
    expect(valueImports).toEqual([]);
  });

  it('the BullMQ processor uses the client by its package name, and bullmq only there', () => {
    const processor = files.filter((file) => layerOf(file) === 'bullmq');
    const packages = new Set(processor.flatMap(specifiers).filter((s) => !s.startsWith('.')));
    expect([...packages].sort()).toEqual(['bullmq', 'omnimedia', 'omnimedia/coordination', 'omnimedia/resources']);
    const importers = files.filter((file) => specifiers(file).includes('bullmq'));
    expect([...new Set(importers.map(layerOf))]).toEqual(['bullmq']);
  });

  it('the studio uses the package by its public entries: its server on node:*, the client, the proxy and the mock; its page on the client and omnimedia/react', () => {
    const studio = files.filter((file) => layerOf(file) === 'studio');
    const outside = (file: string) => [...new Set(specifiers(file).filter((s) => !s.startsWith('.') && !s.startsWith('node:')))];
    const page = studio.filter((file) => file.includes('/studio/page/'));
    expect([...new Set(studio.filter((file) => !page.includes(file)).flatMap(outside))].sort()).toEqual(['omnimedia', 'omnimedia/proxy', 'omnimedia/testing']);
    expect([...new Set(page.flatMap(outside))].sort()).toEqual(['omnimedia', 'omnimedia/react', 'omnimedia/tasks', 'react', 'react-dom/client']);
    expect(page.flatMap(specifiers).filter((s) => s.startsWith('node:'))).toEqual([]);
  });

  it('only omnimedia/react imports react (and the studio’s page, bundled at build time), and it reaches the client by the package’s name', () => {
    const importers = files.filter((file) => !file.includes('/studio/page/') && specifiers(file).some((s) => s === 'react' || s.startsWith('react/') || s.startsWith('react-dom')));
    expect([...new Set(importers.map(layerOf))]).toEqual(['react']);
    const react = files.filter((file) => layerOf(file) === 'react');
    expect([...new Set(react.flatMap(specifiers).filter((s) => !s.startsWith('.')))].sort()).toEqual(['omnimedia/tasks', 'react']);
  });

  it('errors.ts holds only what the main entry exports: the other entries’ CommonJS builds take it from there', async () => {
    // tsup.config.ts resolves errors.ts to `require('omnimedia')` in every CommonJS entry but the
    // main one; a class errors.ts exported and index.ts did not would be undefined there.
    const errors = await import('../src/errors.ts');
    const main: Record<string, unknown> = await import('../src/index.ts');
    for (const [name, value] of Object.entries(errors)) expect(main[name], name).toBe(value);
  });

  it(`no source file is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file: relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});

describe('tests mirror src/', () => {
  const TEST = fileURLToPath(new URL('./', import.meta.url));
  // Not a module's tests: processes and servers across layers, helpers and fixtures, the
  // packed tarball's consumers, the README's and the guides' documentation (docs/), and the
  // checks of the repo itself (this file, browser twins, the build's config).
  const NOT_MIRRORED = new Set(['integration', 'helpers', 'fixtures', 'package', 'docs', 'architecture.test.ts', 'browser-twins.test.ts', 'tsup-config.test.ts']);

  it('each test file sits in the folder of src/ it tests (test/waiting/ for src/waiting/), beside its root module, or in test/integration/', () => {
    const testFiles = sourceFiles(TEST).filter((file) => file.endsWith('.test.ts'));
    const rootModules = readdirSync(SRC).filter((name) => name.endsWith('.ts')).map((name) => name.replace(/\.ts$/, ''));
    const astray = testFiles
      .map((file) => relative(TEST, file).replaceAll('\\', '/'))
      .filter((path) => !NOT_MIRRORED.has(path.split('/')[0]!))
      .filter((path) => {
        const folder = dirname(path);
        if (folder !== '.') return !statSync(join(SRC, folder), { throwIfNoEntry: false })?.isDirectory();
        // At the root: a root module's tests (errors.test.ts), or one aspect of them (errors-types.test.ts).
        return !rootModules.some((module) => path === `${module}.test.ts` || path.startsWith(`${module}-`));
      });
    expect(astray).toEqual([]);
  });
});
