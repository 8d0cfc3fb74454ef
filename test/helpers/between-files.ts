// What a file changed of the process is put back when it ends, and a file that left the
// timers replaced fails: a later file sharing the worker (vitest.config.ts) would wait for
// ever on a fake `setTimeout` whose clock nobody drives. Globals and environment variables
// stubbed with vi.stub* are restored by vitest itself (unstubGlobals, unstubEnvs), as are
// spies between the files of a shared worker; the stubs after the file's own hooks, so a
// `setTimeout` stubbed while fake timers ran came back as the fake one, after
// `vi.useRealTimers()` (test/waiting/retry-delays.test.ts did, and the next file hung).
import { afterAll, vi } from 'vitest';

const TIMERS = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'Date'] as const;
const real = Object.fromEntries(TIMERS.map((name) => [name, globalThis[name]])) as Record<(typeof TIMERS)[number], unknown>;
const cwd = process.cwd();

afterAll(() => {
  vi.useRealTimers();
  if (process.cwd() !== cwd) process.chdir(cwd);
  const replaced = TIMERS.filter((name) => globalThis[name] !== real[name]);
  for (const name of replaced) Object.assign(globalThis, { [name]: real[name] });
  if (replaced.length > 0) throw new Error(`this file left ${replaced.join(', ')} replaced (put back now): restore what it fakes or stubs before its fake timers end`);
});
