// A real redis-server (Debian's package) for the fleet tests, on a free loopback port with
// persistence off; started by the test file and stopped after it. Without redis-server the
// tests are skipped with one line saying how to run them, unless OMNIMEDIA_REQUIRE_REDIS=1
// (CI sets it), which makes a missing redis-server a failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createClient } from 'redis';

export const REDIS_AVAILABLE = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

if (!REDIS_AVAILABLE) {
  if (process.env.OMNIMEDIA_REQUIRE_REDIS === '1') throw new Error('redis-server is not installed, and OMNIMEDIA_REQUIRE_REDIS=1 requires it (apt-get install redis-server)');
  console.warn('fleet tests skipped: no redis-server on the PATH (apt-get install redis-server, then npm test)');
}

/** A port nobody listens on now, on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `redis-server` with `args`, resolved once it accepts connections (rejected if it exits first). */
export async function spawnRedisServer(args: string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'inherit'] });
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

/** A redis-server you can stop and start again (same port, empty each time: no persistence). */
export class RedisServer {
  port = 0;
  #process: ChildProcess | undefined;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    this.#process = await spawnRedisServer(['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
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
