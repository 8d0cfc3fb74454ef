// The Node ESM builds are minified (tsup.config.ts, minifiedForNode): esbuild then drops every
// comment inside an `import()`, and the lazy imports of `node:*` modules need theirs, or webpack
// (Next.js) and Vite bundling the package try to resolve them. keepImportComments puts them back.
// The main entry's ESM build swaps in `.esm.ts` twins (esmTwins): the batch engine loads lazily.
import { readdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { SourceMapConsumer } from 'source-map-js';
import { describe, expect, it } from 'vitest';
import { IGNORE_COMMENTS, keepImportComments } from '../tsup.config.ts';

const SOURCE = `const NODE_FS = 'node:fs';
const importNode = (specifier) => import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
export async function stat(path) {
  const fs = await importNode(NODE_FS);
  return fs.statSync(path);
}
export const late = () => import('./late.js');
export const marker = 'after';
`;

async function minified(): Promise<{ code: string; map: string }> {
  const result = await build({
    stdin: { contents: SOURCE, loader: 'js', sourcefile: 'lazy.js' },
    format: 'esm',
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'external',
    outfile: 'out.js',
    external: ['./late.js'],
    bundle: true,
    write: false,
    logLevel: 'silent',
  });
  const text = (suffix: string) => result.outputFiles.find((f) => f.path.endsWith(suffix))!.text;
  return { code: text('out.js'), map: text('out.js.map') };
}

describe('the Node builds keep the bundler comments of their lazy imports', () => {
  it('esbuild drops them when it minifies (why the plugin exists)', async () => {
    const { code } = await minified();
    expect(code).not.toContain('webpackIgnore');
  });

  it('puts them back into every import() but those of the build’s own chunks, and the source map still maps back', async () => {
    const { code, map } = await minified();
    const result = keepImportComments.renderChunk(code, { path: 'out.js', map });
    expect(result).toBeDefined();
    const out = result!.code;
    expect(out).toContain(`import(${IGNORE_COMMENTS}specifier)`);
    expect(out).toMatch(/import\(["']\.\/late\.js["']\)/);
    expect(out.match(/webpackIgnore/g)).toHaveLength(1);
    // The map of the change, chained onto esbuild's as tsup does, finds `marker` in the source.
    const changed = new SourceMapConsumer(JSON.parse(JSON.stringify(result!.map)));
    const original = new SourceMapConsumer(JSON.parse(map));
    const at = out.indexOf('marker');
    const before = out.slice(0, at);
    const step = changed.originalPositionFor({ line: before.split('\n').length, column: at - before.lastIndexOf('\n') - 1 });
    const source = original.originalPositionFor({ line: step.line!, column: step.column! });
    expect(SOURCE.split('\n')[source.line! - 1]).toContain('marker');
  });

  it('leaves a file without such an import alone, and a build without maps without one', () => {
    expect(keepImportComments.renderChunk('export const a=1;', { path: 'a.js' })).toBeUndefined();
    expect(keepImportComments.renderChunk('const f=s=>import(s);', { path: 'a.js' })?.map).toBeUndefined();
  });

  it('the built package: every import() of dist/*.js not of its own chunks carries them (after npm run build)', () => {
    let text: string;
    try {
      text = readFileSync(new URL('../dist/index.js', import.meta.url), 'utf8');
    } catch {
      return; // not built: the cases above cover the plugin
    }
    const bare = [...text.matchAll(/\bimport\((?!\s*["'`]\.{1,2}\/)(?!\s*\/\* @vite-ignore \*\/\s*\/\* webpackIgnore: true \*\/)/g)];
    expect(bare).toEqual([]);
  });
});

describe('the ESM twins of the main entry (the batch engine loaded when a batch starts)', () => {
  const twins = readdirSync(new URL('../src/batch/', import.meta.url)).filter((name) => name.endsWith('.esm.ts'));

  it('each offers what its module does', async () => {
    expect(twins).toEqual(['engine-entry.esm.ts']);
    for (const twin of twins) {
      const lazy = (await import(new URL(`../src/batch/${twin}`, import.meta.url).href)) as Record<string, unknown>;
      const eager = (await import(new URL(`../src/batch/${twin.replace('.esm.ts', '.ts')}`, import.meta.url).href)) as Record<string, unknown>;
      expect(Object.keys(lazy).sort()).toEqual(Object.keys(eager).sort());
    }
  });

  it('the lazy engine refuses what the engine refuses, at the first step', async () => {
    const { runClientBatch } = await import('../src/batch/engine-entry.esm.ts');
    const run = runClientBatch({} as never, 42 as never, undefined);
    await expect(run.next()).rejects.toThrow(/must be a JSONL file path or an iterable of jobs/);
  });

  it('the built package: dist/index.js loads the engine only with import() of its own chunk (after npm run build)', () => {
    let text: string;
    try {
      text = readFileSync(new URL('../dist/index.js', import.meta.url), 'utf8');
    } catch {
      return; // not built
    }
    expect(text).toMatch(/import\(["']\.\/engine-[\w-]+\.js["']\)/);
    expect(text).not.toContain('must be a JSONL file path or an iterable of jobs');
  });
});

