// docs/proxy-deployment.md's Worker recipe runs under `wrangler dev` as written: its
// wrangler.jsonc is the example's (examples/proxy-cloudflare/, whose worker.ts runs in workerd in
// test/proxy/workerd.test.ts), the page it serves exists, and its `.dev.vars` holds every
// binding of the Worker's `Env` that no `vars` entry gives (a missing key made every request a
// 500 proxy_not_configured). wrangler is not a dependency of the repository: the tarball tests
// run these files under `wrangler dev` with wrangler from npm (test/package/wrangler-dev.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { codeBlocks, read, ROOT } from '../helpers/docs.ts';

const jsonc = (text: string) => JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as { main: string; assets?: { directory: string }; vars?: Record<string, string> };

it("the guide's wrangler.jsonc is the example's, and its .dev.vars gives every secret the Worker reads", () => {
  const blocks = codeBlocks('docs/proxy-deployment.md');
  const guide = jsonc(blocks.find((b) => b.info === 'jsonc')!.code);
  const example = jsonc(read('examples/proxy-cloudflare/wrangler.jsonc'));
  expect(guide).toEqual(example);
  expect(existsSync(join(ROOT, 'examples/proxy-cloudflare', example.main))).toBe(true);
  expect(existsSync(join(ROOT, 'examples/proxy-cloudflare', example.assets!.directory, 'index.html'))).toBe(true);
  const devVars = blocks.find((b) => b.info === 'sh' && b.code.startsWith('# .dev.vars'))!.code;
  const given = new Set([...devVars.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));
  const env = /interface Env \{([\s\S]*?)\n\}/.exec(read('examples/proxy-cloudflare/worker.ts'))![1]!;
  const required = [...env.matchAll(/^\s+([A-Z_]+): string;/gm)].map((m) => m[1]!).filter((name) => !(name in (example.vars ?? {})));
  expect(required).toEqual(['OMNIMEDIA_API_KEY']);
  for (const name of required) expect(given.has(name), name).toBe(true);
});
