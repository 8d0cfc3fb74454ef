// Every ```ts runnable block of the README and the guides, run as a newcomer runs it: for each
// page, a fresh `npm init -y` project (CommonJS by default, as npm makes it), the page's own
// install line with the packed tarball for `omnimedia`, the page's mock command (its port made
// 0, so runs never collide), the page's variables, then each block saved under the name the
// page gives and run by the page's command. Nothing else is added: a block that needs a file,
// a package or a flag the page does not name fails here. test/helpers/runnable.ts reads the
// instructions.
// Usage: node test/package/guide-blocks.ts TARBALL WORKDIR [PAGE-PATH-PART]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentationFiles } from '../helpers/docs.ts';
import { runnableBlocks, type RunInstruction } from '../helpers/runnable.ts';

const [tarball, work, only = ''] = process.argv.slice(2);
if (!tarball || !work) throw new Error('usage: node test/package/guide-blocks.ts TARBALL WORKDIR');
/** A block of the guides runs a video or two against the mock (about 11 s each): 3 minutes is far beyond. */
const BLOCK_LIMIT_MS = 180_000;

interface Ran {
  code: number | null;
  output: string;
}

function run(command: string[], cwd: string, env: NodeJS.ProcessEnv, limitMs = BLOCK_LIMIT_MS): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Starts the page's mock command; resolves with the address it prints. */
function startMock(command: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const port = command.indexOf('--port');
  const args = port === -1 ? command : command.map((word, i) => (i === port + 1 ? '0' : word));
  return new Promise((resolve, reject) => {
    // Its own process group: `npx` does not pass a signal on to the bin it started.
    const child = spawn(args[0]!, args.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Mock omnimedia service on (\S+)/.exec(output)?.[1];
      if (url) resolve({ url, child });
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('error', reject);
    child.once('close', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${output}`)));
  });
}

/** The user's environment without this repository's omnimedia settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('OMNIMEDIA_') || name.startsWith('npm_')) delete env[name];
  return env;
}

async function runPage(path: string): Promise<string[]> {
  const blocks = runnableBlocks(path);
  const first = blocks[0]!.how;
  if ('missing' in first) return [`${path}: the page does not say ${first.missing.join('; ')}`];
  const dir = join(work!, path.replace(/[^\w]+/g, '-'));
  mkdirSync(dir, { recursive: true });
  const env = cleanEnv();
  const failures: string[] = [];
  const step = async (command: string[]) => {
    const ran = await run(command, dir, env);
    if (ran.code !== 0) throw new Error(`${path}: ${command.join(' ')} exited ${ran.code}:\n${ran.output}`);
  };
  await step(['npm', 'init', '-y']);
  // The page's line, the tarball standing for the published `omnimedia`.
  await step([...first.install.map((word) => (word === 'omnimedia' ? tarball! : word)), '--no-audit', '--no-fund', '--loglevel=error']);
  const mock = await startMock(first.mock, dir, env);
  try {
    for (const { block, how } of blocks) {
      const instruction = how as RunInstruction;
      writeFileSync(join(dir, instruction.file), block.code);
      const blockEnv = { ...env, ...instruction.env, OMNIMEDIA_BASE_URL: mock.url };
      const started = Date.now();
      const ran = await run(instruction.command, dir, blockEnv);
      const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
      if (ran.code === 0) console.log(`ok ${block.where}: ${instruction.command.join(' ')} (${took})`);
      else failures.push(`${block.where}: ${instruction.command.join(' ')} exited ${ran.code} after ${took}:\n${ran.output}`);
    }
  } finally {
    const closed = new Promise((resolve) => mock.child.once('close', resolve));
    process.kill(-mock.child.pid!, 'SIGINT');
    await closed;
  }
  return failures;
}

const pages = documentationFiles().filter((path) => path.includes(only) && runnableBlocks(path).length > 0);
// Six pages at a time: their blocks mostly wait on the mock's tasks (a video about 11 s), each
// page on a mock of its own. Three at a time took 124 s of CI's 1,161 (eleven pages; the longest
// page, images-and-videos.md, is 28 s of blocks after its install).
const queue = [...pages];
const failures: string[] = [];
await Promise.all(
  Array.from({ length: 6 }, async () => {
    for (let page = queue.shift(); page; page = queue.shift()) {
      try {
        failures.push(...(await runPage(page)));
      } catch (error) {
        failures.push(String(error instanceof Error ? error.message : error));
      }
    }
  }),
);
if (failures.length) {
  console.error(`\n${failures.length} runnable block(s) did not run as their page says:\n\n${failures.join('\n\n')}`);
  process.exit(1);
}
console.log(`ok: ${pages.length} pages, every runnable block run as its page says`);
