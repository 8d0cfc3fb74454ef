// omnimedia/testing must load for users without msw installed (it is an optional peer): in a
// child process where 'msw' cannot be resolved, the entry imports and serves a request, and
// only omnimedia/testing/msw fails.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const node = join(root, 'node_modules', '.bin', 'node');

// Hide msw (and its subpaths) from the resolver, as if it were not installed.
const hideMsw = `
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'msw' || specifier.startsWith('msw/')) {
      throw Object.assign(new Error("Cannot find package 'msw'"), { code: 'ERR_MODULE_NOT_FOUND' });
    }
    return next(specifier, context);
  },
});
`;

const script = `
const testing = await import(${JSON.stringify(join(root, 'src/testing/index.ts'))});
const mock = testing.createMockService();
const response = await mock.handle(new Request(mock.baseURL + '/v1/tasks/none'));
const server = await testing.startMockServer();
const viaHttp = await fetch(server.url + '/v1/tasks/none');
await server.close();
let mswEntry = 'loaded';
try { await import(${JSON.stringify(join(root, 'src/testing/msw.ts'))}); } catch (error) { mswEntry = error.code; }
console.log(JSON.stringify({ handler: response.status, http: viaHttp.status, mswEntry }));
`;

it('imports and works without msw; only the /msw entry needs it', async () => {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      node,
      ['--import', `data:text/javascript,${encodeURIComponent(hideMsw)}`, '--input-type=module', '-e', script],
      { cwd: root, timeout: 30_000 },
      (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
    ),
  );
  expect(JSON.parse(stdout.trim())).toEqual({ handler: 404, http: 404, mswEntry: 'ERR_MODULE_NOT_FOUND' });
});
