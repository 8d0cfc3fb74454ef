// Loaded with `node --import` by test/integration/examples.test.ts: resolves the package's own name to
// src/ so the examples run against the code under test without a build first (Node 24 strips
// the types). `npm run demo` runs the same scripts against the build.
import { registerHooks } from 'node:module';

const src = (path: string) => new URL(`../../src/${path}`, import.meta.url).href;
const targets: Record<string, string> = {
  omnimedia: src('index.ts'),
  'omnimedia/redis': src('redis/index.ts'),
  'omnimedia/proxy': src('proxy/index.ts'),
  'omnimedia/otel': src('otel/index.ts'),
  'omnimedia/ai-sdk': src('ai-sdk/index.ts'),
  'omnimedia/schemas': src('schemas/index.ts'),
  'omnimedia/tasks': src('tasks.ts'),
  'omnimedia/testing': src('testing/index.ts'),
  'omnimedia/testing/msw': src('testing/msw.ts'),
};

registerHooks({
  resolve(specifier, context, nextResolve) {
    const target = targets[specifier];
    return target ? { url: target, shortCircuit: true } : nextResolve(specifier, context);
  },
});
