// docs/proxy-deployment.md's Cloudflare Workers recipe under `wrangler dev`, as the guide says it:
// a fresh `npm init -y` project with the guide's install line (the packed tarball standing for
// the published `omnimedia`, wrangler from npm), the guide's worker.ts, wrangler.jsonc and
// `.dev.vars` saved as they are written (only the mock's port changed, as guide-blocks.ts does),
// the example's public/index.html, and `npx omnimedia mock` from the tarball as the service.
// Asserts what the guide promises: the page at `/` from public/, a submission through the proxy
// that reaches the mock and gives a task id, a task read through the proxy, and without
// `.dev.vars` a 500 `proxy_not_configured`. test/proxy/workerd.test.ts runs the example's
// worker.ts in workerd through Miniflare; only this runs wrangler itself (its config, its
// `.dev.vars` loading, its static assets).
// Nothing leaves the machine but npm's registry: wrangler's metrics and its `Request.cf` fetch
// are off, `--ip 127.0.0.1 --port 0 --inspector-port 0` (a free port, read from "Ready on").
// Every process it starts runs in a process group of its own (npx does not pass a signal on to
// wrangler, wrangler's workerd are its children) and the group is gone before it returns, also
// on failure, Ctrl-C or its time limit.
// Usage: node test/package/wrangler-dev.ts TARBALL WORKDIR [WRANGLER_VERSION]   (another 4.x: what `wrangler@4` gives today)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { codeBlocks, read } from '../helpers/docs.ts';

/**
 * The wrangler release run: the newest 4.x whose workerd and miniflare are the repository's
 * devDependencies' (workerd 1.20260730.1, miniflare 4.20260730.0), the build test/proxy/ already
 * runs on CI's Debian. The guide's line says `wrangler@4`; bump this with the miniflare devDependency.
 */
const PINNED = '4.116.0';
/** The whole run, install included: 45-71 s measured here at a load of 15-25 on 2 cores (npm install 23-39 s of it); a hung wrangler ends at this. */
const LIMIT_MS = 150_000;
const GUIDE = 'docs/proxy-deployment.md';
const KEY = 'sk-mock';

const [tarball, work, WRANGLER_VERSION = PINNED] = process.argv.slice(2);
if (!tarball || !work) throw new Error('usage: node test/package/wrangler-dev.ts TARBALL WORKDIR');
const dir = join(work, 'wrangler-dev');
mkdirSync(join(dir, 'public'), { recursive: true });

const groups = new Set<ChildProcess>();
/** Set once the run ends (done, failed, Ctrl-C, time limit): from then on nothing more is started. */
let stopping = false;
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);

/** Signals a process group; false once it is gone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the whole group, SIGKILL after 5 s; resolves when none of it is left (or after 10 s: the leftovers check names it). */
async function stopGroup(child: ChildProcess): Promise<void> {
  signalGroup(child, 'SIGTERM');
  for (let i = 0; i < 100 && signalGroup(child, 0); i++) {
    if (i === 50) signalGroup(child, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  groups.delete(child);
}

/** The user's environment without this repository's omnimedia or npm settings, and wrangler kept local. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('OMNIMEDIA_') && !name.startsWith('npm_')) env[name] = value;
  return {
    ...env,
    // The Node running this script is the user's `node` (wrangler 4 refuses Node 20, the system's here).
    PATH: `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}`,
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false', // else every start asks workers.cloudflare.com for Request.cf
    XDG_CONFIG_HOME: join(dir, '.config'), // wrangler's own config and logs stay in the project
  };
}
const env = userEnv();

/** `command` in the project, in a process group of its own (the group is what is stopped). */
function spawnGroup(command: string[]): ChildProcess {
  if (stopping) throw new Error(`the run is ending: ${command.join(' ')} not started`);
  const child = spawn(command[0]!, command.slice(1), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  groups.add(child);
  return child;
}

/** Starts `command` in a group of its own; resolves with the first match of `ready` in its output. */
function start(command: string[], ready: RegExp, what: string): Promise<{ child: ChildProcess; found: string; output: () => string }> {
  const child = spawnGroup(command);
  let output = '';
  return new Promise((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString().replace(/\x1b\[[0-9;]*m/g, '');
      const found = ready.exec(output)?.[1];
      if (found) resolve({ child, found, output: () => output });
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('error', reject);
    child.once('exit', (code) => reject(new Error(`${what}: ${command.join(' ')} exited ${code}:\n${output}`)));
  });
}

/** Runs a command to its end (in a group of its own, so the time limit can stop it too). */
function run(command: string[]): Promise<void> {
  const child = spawnGroup(command);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.once('close', (code) => {
      groups.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${command.join(' ')} exited ${code}:\n${output}`));
    });
  });
}

function check(ok: boolean, what: string, detail: unknown): void {
  if (!ok) throw new Error(`${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
  console.log(`ok ${what}`);
}

/** The guide's blocks: its install line, the Worker, its wrangler.jsonc and its .dev.vars. */
function guideFiles() {
  const blocks = codeBlocks(GUIDE);
  const one = (what: string, test: (info: string, code: string) => boolean) => {
    const found = blocks.filter((b) => test(b.info, b.code));
    if (found.length !== 1) throw new Error(`${GUIDE}: ${found.length} blocks for ${what}, not 1`);
    return found[0]!.code;
  };
  const install = one('the install line', (info, code) => info === 'sh' && code.includes('wrangler@'));
  return {
    install: install.split('\n').filter((line) => line.startsWith('npm install')),
    worker: one('worker.ts', (info, code) => info === 'ts' && code.includes('interface Env')),
    config: one('wrangler.jsonc', (info) => info === 'jsonc'),
    devVars: one('.dev.vars', (info, code) => info === 'sh' && code.startsWith('# .dev.vars')),
  };
}

async function main(): Promise<void> {
  const guide = guideFiles();
  await run(['npm', 'init', '-y']);
  // The guide's lines, the tarball for `omnimedia` and the pinned 4.x for its `wrangler@4`.
  for (const line of guide.install) {
    const words = line.split(/\s+/).filter((word) => word !== '');
    const major = words.find((word) => word.startsWith('wrangler@'));
    if (major && !WRANGLER_VERSION.startsWith(`${major.slice('wrangler@'.length)}.`)) throw new Error(`${GUIDE} says ${major}; this runs ${WRANGLER_VERSION}`);
    await run([...words.map((word) => (word === 'omnimedia' ? tarball! : word === major ? `wrangler@${WRANGLER_VERSION}` : word)), '--no-audit', '--no-fund', '--loglevel=error']);
  }
  console.log(`ok the guide's install lines (${seconds()} s)`);
  writeFileSync(join(dir, 'worker.ts'), guide.worker);
  writeFileSync(join(dir, 'wrangler.jsonc'), guide.config);
  const page = read('examples/proxy-cloudflare/public/index.html');
  writeFileSync(join(dir, 'public/index.html'), page);

  const mock = await start(['npx', 'omnimedia', 'mock', '--json'], /"base_url":\s*"([^"]+)"/, 'the mock');
  const mockURL = mock.found;
  if (!guide.devVars.includes('http://127.0.0.1:4010')) throw new Error(`${GUIDE}'s .dev.vars no longer names the mock at http://127.0.0.1:4010`);
  writeFileSync(join(dir, '.dev.vars'), guide.devVars.replace('http://127.0.0.1:4010', mockURL));

  const wranglerDev = () =>
    start(['npx', 'wrangler', 'dev', '--ip', '127.0.0.1', '--port', '0', '--inspector-port', '0', '--show-interactive-dev-session=false'], /Ready on (http:\/\/\S+)/, 'wrangler dev');

  const seen: string[] = []; // every answer of the proxy, searched for the key
  const ask = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, init);
    const text = await response.text();
    seen.push(`${JSON.stringify([...response.headers])}\n${text}`);
    return { status: response.status, type: response.headers.get('content-type') ?? '', text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  const submit = (origin: string, cookie?: string) =>
    ask(`${origin}/api/omnimedia/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ model: 'omni-image', prompt: 'a fox under wrangler dev' }),
    });

  // With the guide's .dev.vars.
  const dev = await wranglerDev();
  console.log(`ok wrangler dev ready on ${dev.found} (${seconds()} s)`);
  check(/Using secrets defined in \.dev\.vars/.test(dev.output()), 'wrangler read .dev.vars', dev.output());
  const home = await ask(`${dev.found}/`);
  check(home.status === 200 && home.type.startsWith('text/html') && home.text === page, 'GET / is public/index.html', { status: home.status, type: home.type });
  const refused = await submit(dev.found);
  check(refused.status === 401, "no session: the guide's authorize refuses (401)", refused.text);
  const submitted = await submit(dev.found, 'session=newcomer');
  const taskId = submitted.status === 200 ? submitted.json().task_id : undefined;
  check(typeof taskId === 'string' && taskId.startsWith('task_'), 'a submission through the proxy returns a task id', submitted.text);
  const atMock = await fetch(`${mockURL}/v1/tasks/${String(taskId)}`, { headers: { authorization: `Bearer ${KEY}` } });
  const mockTask = (await atMock.json()) as Record<string, unknown>;
  check(atMock.status === 200 && mockTask.task_id === taskId, 'the task is the mock service’s (read from the mock itself)', mockTask);
  const read_ = await ask(`${dev.found}/api/omnimedia/v1/tasks/${String(taskId)}`, { headers: { cookie: 'session=newcomer' } });
  check(read_.status === 200 && read_.json().task_id === taskId, 'a task read through the proxy', read_.text);
  await stopGroup(dev.child);

  // Without .dev.vars: the guide's warning.
  renameSync(join(dir, '.dev.vars'), join(dir, 'dev.vars.aside'));
  const bare = await wranglerDev();
  check(!bare.output().includes('.dev.vars'), 'wrangler started without .dev.vars', bare.output());
  check((await ask(`${bare.found}/`)).status === 200, 'GET / still serves the page', '');
  const unconfigured = await submit(bare.found, 'session=newcomer');
  const code = unconfigured.status === 500 ? (unconfigured.json().error as { code?: unknown } | undefined)?.code : undefined;
  check(code === 'proxy_not_configured', 'without .dev.vars: 500 proxy_not_configured', `${unconfigured.status} ${unconfigured.text}`);
  await stopGroup(bare.child);
  await stopGroup(mock.child);

  check(!seen.some((text) => text.includes(KEY)), 'no answer of the proxy holds the key', '');
}

/** Processes still running from the project (wrangler's workerd, esbuild): none may outlive the run. */
function leftovers(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (command.includes(dir)) found.push(`${pid} ${command}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Stops every group started (none can start after this), checks none is left, and exits. */
async function finish(failed: boolean): Promise<never> {
  stopping = true;
  while (groups.size > 0) await Promise.all([...groups].map(stopGroup));
  const left = leftovers();
  if (left.length > 0) console.error(`still running after the run:\n${left.join('\n')}`);
  const ok = !failed && left.length === 0;
  console.log(`wrangler dev recipe (wrangler ${WRANGLER_VERSION}): ${ok ? 'ok' : 'FAILED'} in ${seconds()} s`);
  process.exit(ok ? 0 : 1);
}

setTimeout(() => {
  console.error(`wrangler dev recipe: not done after ${LIMIT_MS / 1000} s`);
  void finish(true);
}, LIMIT_MS);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`wrangler dev recipe: ${signal}`);
    void finish(true);
  });

await main().then(
  () => finish(false),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    return finish(true);
  },
);
