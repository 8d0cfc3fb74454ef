import { spawn } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type Options } from 'tsup';
import { onTestFinished } from 'vitest';
import configs from '../../../tsup.config.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside node_modules, so the built package finds its dependencies (ky, zod...) the way an
// installed one does, and beside its own package.json, so `import 'omnimedia'` in dist/cli.js
// resolves by self-reference exactly as in a user's node_modules.
const packageDir = (name: string) => `${ROOT}node_modules/.cache/${name}/`;
export const CLI_PATH = `${packageDir('omnimedia-cli-e2e')}dist/cli.js`;

/**
 * Build the package with the repo's own tsup config (declarations off, for speed) into a
 * private directory (one per test file that builds: `name`): a test never races another
 * process that cleans or rebuilds dist/, nor another file's build. Returns the bin's path.
 */
export async function buildCli(name = 'omnimedia-cli-e2e'): Promise<string> {
  const dir = packageDir(name);
  await mkdir(dir, { recursive: true });
  await copyFile(`${ROOT}package.json`, `${dir}package.json`);
  const list = (Array.isArray(configs) ? configs : [configs]) as Options[];
  for (const config of list) {
    await build({ ...config, outDir: `${dir}dist`, dts: false, sourcemap: false, config: false, silent: true });
  }
  return `${dir}dist/cli.js`;
}

export interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI as a user would, with only the environment given (no inherited key or URL). */
export function runBuilt(
  args: readonly string[],
  options: { env?: Record<string, string>; onStderr?: (text: string, child: ReturnType<typeof spawn>) => void; onStdout?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<Spawned> {
  return runProcess(process.execPath, [CLI_PATH, ...args], options);
}

export function runProcess(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; onStderr?: (text: string, child: ReturnType<typeof spawn>) => void; onStdout?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A test that ends first (its timeout, a failed expectation) takes its child with it: left
    // running, it went on to submit into the next test's mock (CI, load 25: "nothing sent" saw
    // the timed-out test's task).
    try {
      onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
    } catch {
      // Outside a test (a beforeAll): the caller owns it.
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      options.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      options.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
