// A real redis-server (Debian's package) for the fleet tests, on a free loopback port below the
// ephemeral range (test/helpers/ports.ts: redis-server cannot be told to pick one) with
// persistence off; started by the test file and stopped after it, and killed with the vitest
// worker however that ends (test/helpers/owned-process.ts). Without redis-server the
// tests are skipped with one line saying how to run them, unless OMNIMEDIA_REQUIRE_REDIS=1
// (CI sets it), which makes a missing redis-server a failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createClient } from 'redis';
import { owned } from './owned-process.ts';
import { portBelowEphemeralRange } from './ports.ts';

export const REDIS_AVAILABLE = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

if (!REDIS_AVAILABLE) {
  if (process.env.OMNIMEDIA_REQUIRE_REDIS === '1') throw new Error('redis-server is not installed, and OMNIMEDIA_REQUIRE_REDIS=1 requires it (apt-get install redis-server)');
  console.warn('fleet tests skipped: no redis-server on the PATH (apt-get install redis-server, then npm test)');
}

/** Starts `redis-server` with `args`, resolved once it accepts connections (rejected if it exits first). */
export async function spawnRedisServer(args: string[]): Promise<ChildProcess> {
  const child = owned(spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
  });
  child.stdout?.resume();
  return child;
}

/** redis-server's own words for a port another process took first. */
export const isPortTaken = (error: unknown): boolean => /Address already in use/.test(String(error));

/** How many ports a first start tries before it gives up. */
const START_ATTEMPTS = 5;

/** A redis-server you can stop and start again (same port, empty each time: no persistence). */
export class RedisServer {
  port = 0;
  #process: ChildProcess | undefined;
  readonly #pickPort: () => Promise<number>;

  /** `pickPort` chooses the port of the first start (tests of this helper give a taken one). */
  constructor(options: { pickPort?: () => Promise<number> } = {}) {
    this.#pickPort = options.pickPort ?? (() => portBelowEphemeralRange());
  }

  /** Its process id while it runs. */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * Start it: the first time on a port it picks (another one if that was taken meanwhile),
   * after a `stop()` on the same port again (its clients have its URL).
   */
  async start(): Promise<void> {
    const launch = (port: number) => spawnRedisServer(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
    if (this.port !== 0) {
      this.#process = await launch(this.port);
      return;
    }
    for (let attempt = 1; ; attempt++) {
      const port = await this.#pickPort();
      try {
        this.#process = await launch(port);
        this.port = port;
        return;
      } catch (error) {
        if (attempt >= START_ATTEMPTS || !isPortTaken(error)) throw error;
      }
    }
  }

  /** A node-redis client of the test's own on it, connected (its errors are the test's to see, not a crash). */
  async client() {
    const client = createClient({ url: this.url });
    client.on('error', () => {});
    await client.connect();
    return client;
  }

  /** Stop it answering without closing a connection (SIGSTOP), as a stalled or swapping server does; `resume()` goes on. */
  pause(): void {
    this.#process?.kill('SIGSTOP');
  }

  /** Answer again after `pause()` (SIGCONT): the commands sent meanwhile are run now. */
  resume(): void {
    this.#process?.kill('SIGCONT');
  }

  /** Empty it (between tests). */
  flush(): void {
    spawnSync('redis-cli', ['-p', String(this.port), 'FLUSHALL'], { stdio: 'ignore' });
  }

  async stop(): Promise<void> {
    const child = this.#process;
    this.#process = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
      child.kill('SIGCONT'); // a paused one too
    });
  }
}
