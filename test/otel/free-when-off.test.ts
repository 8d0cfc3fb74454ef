// Free when off: a whole flow of the client without the telemetry option resolves no
// @opentelemetry/* module (a Node resolve hook records every module the process resolves);
// the same flow with openTelemetry() does, which shows the hook sees them.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The repo's own Node 24 (type stripping, module.registerHooks), whichever Node runs vitest.
const node = join(root, 'node_modules', '.bin', 'node');
const fromSrc = fileURLToPath(new URL('../helpers/examples-resolve.ts', import.meta.url));
const record = fileURLToPath(new URL('./fixtures/resolutions.mjs', import.meta.url));
const flow = fileURLToPath(new URL('./fixtures/flow.ts', import.meta.url));

function runFlow(mode: 'off' | 'on'): Promise<{ stdout: string; resolved: string[] }> {
  return new Promise((resolve, reject) => {
    execFile(node, ['--import', fromSrc, '--import', record, flow, mode], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stdout}\n${stderr}`));
      const line = stdout.split('\n').find((l) => l.startsWith('RESOLVED '));
      resolve({ stdout, resolved: JSON.parse(line?.slice('RESOLVED '.length) ?? '[]') as string[] });
    });
  });
}

describe('free when off', () => {
  it('without the option, no @opentelemetry/* module is resolved in a whole flow', { timeout: 70_000 }, async () => {
    const { stdout, resolved } = await runFlow('off');
    expect(stdout).toMatch(/flow done: completed, callback 200, \d+ bytes, upload ok/);
    expect(resolved.length).toBeGreaterThan(20);
    expect(resolved.some((r) => r.includes('/src/index.ts'))).toBe(true);
    expect(resolved.filter((r) => /opentelemetry|\/src\/otel\//.test(r))).toEqual([]);
  });

  it('with openTelemetry(), @opentelemetry/api is resolved (the hook sees it), and the flow is the same', { timeout: 70_000 }, async () => {
    const { stdout, resolved } = await runFlow('on');
    expect(stdout).toMatch(/flow done: completed, callback 200, \d+ bytes, upload ok/);
    expect(resolved.some((r) => r.startsWith('@opentelemetry/api ->'))).toBe(true);
  });
});
