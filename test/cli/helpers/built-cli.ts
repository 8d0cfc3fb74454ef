import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Options } from 'tsup';
import { onTestFinished } from 'vitest';
import { childEnv } from '../../helpers/child-env.ts';
import { UsageError } from '../../../src/cli/args.ts';
import { lockDir } from '../../../src/cli/batch-lock.ts';
import configs from '../../../tsup.config.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Inside node_modules, so the built package finds its dependencies (zod...) the way an
// installed one does, and beside its own package.json, so `import 'omnimedia'` in dist/cli.js
// resolves by self-reference exactly as in a user's node_modules.
const CACHE = `${ROOT}node_modules/.cache/`;
const BUILT = 'omnimedia-built-';

/** What the build reads (src/, the tsup config, package.json, tsconfig.json), as one digest. */
async function sourceDigest(): Promise<string> {
  const hash = createHash('sha256');
  const files = (await readdir(`${ROOT}src`, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of [...files, `${ROOT}tsup.config.ts`, `${ROOT}package.json`, `${ROOT}tsconfig.json`]) {
    hash.update(`${file}\0`);
    hash.update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The built CLI's path, once `buildCli()` has run. */
export let CLI_PATH = '';

/**
 * The package built with the repo's own tsup config (declarations off, for speed), once per
 * content of what the build reads: the files that build share it, one building while the others
 * wait, and a second run of the suite without a change builds nothing (the four callers built
 * their own before: ~6 s of CPU each). A build goes to a directory of its own and is renamed
 * into place whole, so a test never sees a half-built package; builds of older contents are
 * removed. Returns the bin's path.
 */
export async function buildCli(): Promise<string> {
  const digest = await sourceDigest();
  const dir = `${CACHE}${BUILT}${digest}/`;
  // The batch's own directory lock (one owner, a dead one's lock taken over), on a directory of its own.
  const locks = `${CACHE}omnimedia-build-lock/`;
  await mkdir(locks, { recursive: true });
  while (!existsSync(`${dir}dist/cli.js`)) {
    const lock = await lockDir(locks, () => {}).catch((error: unknown) => {
      if (error instanceof UsageError) return undefined; // held by another build
      throw error;
    });
    if (!lock) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    try {
      if (!existsSync(`${dir}dist/cli.js`)) await buildInto(dir);
    } finally {
      await lock.release();
    }
    for (const entry of await readdir(CACHE)) {
      if (entry.startsWith(BUILT) && entry !== `${BUILT}${digest}`) await rm(`${CACHE}${entry}`, { recursive: true, force: true });
    }
  }
  return (CLI_PATH = `${dir}dist/cli.js`);
}

async function buildInto(dir: string): Promise<void> {
  const building = await mkdtemp(`${CACHE}omnimedia-building-`);
  try {
    await copyFile(`${ROOT}package.json`, `${building}/package.json`);
    const list = (Array.isArray(configs) ? configs : [configs]) as Options[];
    for (const config of list) {
      await build({ ...config, outDir: `${building}/dist`, dts: false, sourcemap: false, config: false, silent: true });
    }
    await rename(building, dir);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
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
      env: childEnv({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env }),
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
