// The built package never loads zod (nor ky), at import (ESM) or require (CJS), nor when it
// checks a submission's input: only omnimedia/schemas loads zod. Node >= 22.15
// (module.registerHooks); run.sh runs it on the repo's Node 24.
import { createRequire, registerHooks } from 'node:module';

const loaded = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(result.url);
    if (match) loaded.add(match[1]);
    return result;
  },
});

/** A submission refused locally: the client's own rules, before any request. */
async function refused(OmniMedia) {
  const client = new OmniMedia({ apiKey: 'sk-lazy', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
  const error = await client.images.generate({ model: 'm', prompt: '', size: '1000x1000' }).catch((e) => e);
  if (error?.name !== 'ValidationError' || error.issues.length !== 2) throw new Error(`expected a ValidationError with 2 issues, got ${error}`);
}

const esm = await import('omnimedia');
await refused(esm.OmniMedia);
const esmLoaded = [...loaded];
loaded.clear();
const cjs = createRequire(import.meta.url)('omnimedia');
await refused(cjs.OmniMedia);
const cjsLoaded = [...loaded];
const eager = (list) => list.filter((name) => name === 'zod' || name === 'ky');
if (!esm.OmniMedia || !cjs.OmniMedia) throw new Error('no OmniMedia export');
if (eager(esmLoaded).length || eager(cjsLoaded).length) {
  throw new Error(`loaded by the client: ESM [${esmLoaded}] CJS [${cjsLoaded}]`);
}
loaded.clear();
await import('omnimedia/schemas');
if (!loaded.has('zod')) throw new Error(`omnimedia/schemas did not load zod (the hook sees nothing?): [${[...loaded]}]`);
console.log(`ok zod-free: import and a refused submission load [${esmLoaded.join(', ') || 'nothing'}], require [${cjsLoaded.join(', ') || 'nothing'}]; omnimedia/schemas loads zod`);
