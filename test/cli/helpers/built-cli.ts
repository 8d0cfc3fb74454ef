import { spawn } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type Options } from 'tsup';
import configs from '../../../tsup.config.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside node_modules, so the built package finds its dependencies (ky, zod...) the way an
// installed one does, and beside its own package.json, so `import 'omnimedia'` in dist/cli.js
// resolves by self-reference exactly as in a user's node_modules.
const PACKAGE_DIR = `${ROOT}node_modules/.cache/omnimedia-cli-e2e/`;
export const CLI_PATH = `${PACKAGE_DIR}dist/cli.js`;

/**
 * Build the package with the repo's own tsup config (declarations off, for speed) into a
 * private directory: a test never races another process that cleans or rebuilds dist/.
 */
export async function buildCli(): Promise<string> {
  await mkdir(PACKAGE_DIR, { recursive: true });
  await copyFile(`${ROOT}package.json`, `${PACKAGE_DIR}package.json`);
  const list = (Array.isArray(configs) ? configs : [configs]) as Options[];
  for (const config of list) {
    await build({ ...config, outDir: `${PACKAGE_DIR}dist`, dts: false, sourcemap: false, config: false, silent: true });
  }
  return CLI_PATH;
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
