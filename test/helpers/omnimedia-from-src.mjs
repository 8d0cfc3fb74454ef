// `node --import` this to run an example against src/ instead of the built dist/: the
// examples import 'omnimedia', which by package self-reference means dist/ (needing a build).
import { registerHooks } from 'node:module';

const target = new URL('../../src/index.ts', import.meta.url).href;
registerHooks({
  resolve(specifier, context, nextResolve) {
    return specifier === 'omnimedia' ? { url: target, shortCircuit: true } : nextResolve(specifier, context);
  },
});
