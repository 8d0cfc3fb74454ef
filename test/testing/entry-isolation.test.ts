// The main entry never reaches the mock: no file under src/testing/ is in src/index.ts's
// import graph, so `import 'omnimedia'` carries no testing code, msw or HTTP server.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)) visit(join(dirname(file), match[1]!));
  };
  visit(join(src, entry));
  return seen;
}

it('src/index.ts does not import anything under src/testing/', () => {
  const files = [...importGraph('index.ts')].map((f) => relative(src, f));
  expect(files.length).toBeGreaterThan(10);
  expect(files.filter((f) => f.startsWith('testing'))).toEqual([]);
});

it('only the msw adapter imports msw, and only the server imports @hono/node-server', () => {
  const files = [...importGraph('testing/msw.ts')];
  const importing = (name: string) =>
    files.filter((f) => new RegExp(`['"]${name}['"]`).test(readFileSync(f, 'utf8'))).map((f) => relative(src, f));
  expect(importing('msw')).toEqual(['testing/msw.ts']);
  expect(importing('@hono/node-server')).toEqual(['testing/server.ts']);
});
