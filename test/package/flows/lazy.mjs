// The built package loads neither zod nor ky at import (ESM) or require (CJS): both load at
// first use. Node >= 22.15 (module.registerHooks); run.sh runs it on the repo's Node 24.
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

const esm = await import('omnimedia');
const esmLoaded = [...loaded];
loaded.clear();
const cjs = createRequire(import.meta.url)('omnimedia');
const cjsLoaded = [...loaded];
const eager = (list) => list.filter((name) => name === 'zod' || name === 'ky');
if (!esm.OmniMedia || !cjs.OmniMedia) throw new Error('no OmniMedia export');
if (eager(esmLoaded).length || eager(cjsLoaded).length) {
  throw new Error(`loaded at import: ESM [${esmLoaded}] CJS [${cjsLoaded}]`);
}
console.log(`ok lazy: import loads [${esmLoaded.join(', ')}], require loads [${cjsLoaded.join(', ') || 'nothing'}]`);
