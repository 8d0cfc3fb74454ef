// `node --import` this to run an example against src/ instead of the built dist/: the
// examples import 'omnimedia', which by package self-reference means dist/ (needing a build).
import { registerHooks } from 'node:module';

const targets = {
  omnimedia: new URL('../../src/index.ts', import.meta.url).href,
  'omnimedia/redis': new URL('../../src/redis/index.ts', import.meta.url).href,
  'omnimedia/proxy': new URL('../../src/proxy/index.ts', import.meta.url).href,
  'omnimedia/otel': new URL('../../src/otel/index.ts', import.meta.url).href,
  'omnimedia/testing': new URL('../../src/testing/index.ts', import.meta.url).href,
  'omnimedia/coordination': new URL('../../src/coordination/index.ts', import.meta.url).href,
  'omnimedia/resources': new URL('../../src/resources/index.ts', import.meta.url).href,
  'omnimedia/bullmq': new URL('../../src/bullmq/index.ts', import.meta.url).href,
};
registerHooks({
  resolve(specifier, context, nextResolve) {
    const url = targets[specifier];
    return url ? { url, shortCircuit: true } : nextResolve(specifier, context);
  },
});
