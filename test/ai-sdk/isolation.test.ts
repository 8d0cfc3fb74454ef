// Nothing of the provider enters the other entries' bundles, and the provider bundles nothing
// of the client: it reaches it through 'omnimedia' (external), so an app's bundle holds one
// client, and the provider's classes are the app's.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function inputs(contents: string, external: string[] = []): Promise<string[]> {
  const result = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    metafile: true,
    platform: 'browser',
    format: 'esm',
    external,
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs);
}

it.each([
  ['the whole client', `export * from './src/index.ts';`],
  ['omnimedia/tasks', `export * from './src/tasks.ts';`],
])('%s bundles no file of the provider and nothing of the AI SDK', async (_name, entry) => {
  const files = await inputs(entry);
  expect(files.length).toBeGreaterThan(20);
  expect(files.filter((file) => /src\/ai-sdk\/|node_modules\/(ai|@ai-sdk)\//.test(file))).toEqual([]);
});

it('the provider bundles only its own files: the client comes from omnimedia, the AI SDK gives types', async () => {
  const files = await inputs(`export * from './src/ai-sdk/index.ts';`, ['omnimedia', '@ai-sdk/provider']);
  expect(files.filter((file) => !file.startsWith('src/ai-sdk/'))).toEqual(['<stdin>']);
});
