// The test harness itself (test/helpers/): what a test starts ends with it, however the test
// ends. Beside three CPU burners `npm test` once printed its summary and never exited: a
// fleet file's setup failed half-way (`listen EADDRINUSE`, a port chosen before its server
// bound it), its afterAll threw on the server never set, the redis-server after it was never
// stopped, and that redis-server held the vitest worker's stderr, so vitest waited for the
// pipe forever. Real time: processes and a real redis-server are the subject.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runProcess } from '../cli/helpers/built-cli.ts';
import { NODE } from '../helpers/batch-cli.ts';
import { eventually } from '../helpers/fleet.ts';
import { ephemeralRange, portBelowEphemeralRange } from '../helpers/ports.ts';
import { REDIS_AVAILABLE, RedisServer } from '../helpers/redis-server.ts';
import { everyStep } from '../helpers/teardown.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('everyStep (an afterAll whose setup failed half-way)', () => {
  it('runs every step after one that throws, then throws that error', async () => {
    const ran: string[] = [];
    const failure = new TypeError("Cannot read properties of undefined (reading 'close')");
    const error = await everyStep(
      () => ran.push('a'),
      () => {
        throw failure;
      },
      async () => void ran.push('c'),
    ).catch((e: unknown) => e);
    expect(ran).toEqual(['a', 'c']);
    expect(error).toBe(failure);
  });

  it('throws all the errors, in order, when several steps fail; resolves when none does', async () => {
    const error = await everyStep(
      () => Promise.reject(new Error('one')),
      () => {
        throw new Error('two');
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((e: Error) => e.message)).toEqual(['one', 'two']);
    await expect(everyStep(() => undefined)).resolves.toBeUndefined();
  });
});

describe('ports chosen before binding', () => {
  it('come from below the ephemeral range (where no port-0 listener or outgoing connection takes one), distinct within a process', async () => {
    const { low } = ephemeralRange();
    const ports = await Promise.all(Array.from({ length: 20 }, () => portBelowEphemeralRange({ plus: [10_000] })));
    for (const port of ports) expect(port + 10_000).toBeLessThan(low);
    expect(new Set(ports).size).toBe(20);
  });
});

describe.skipIf(!REDIS_AVAILABLE)('a redis-server a test starts', () => {
  it('starts on another port when the one it picked was taken meanwhile', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as { port: number }).port;
    const picks = [takenPort];
    const redis = new RedisServer({ pickPort: async () => picks.shift() ?? portBelowEphemeralRange() });
    try {
      await redis.start();
      expect(redis.port).not.toBe(takenPort);
      const client = await redis.client();
      expect(await client.ping()).toBe('PONG');
      client.destroy();
    } finally {
      await everyStep(() => redis.stop(), () => new Promise((resolve) => taken.close(resolve)));
    }
  });

  // The watchdog polls once a second: 10 s is ten polls, on any machine. The tests' own
  // timeouts guard against a hang (the old helpers hung for ever), no bound on how fast a
  // loaded machine starts node and redis-server (15 s and 60 s failed at a load of 30).
  it('is killed when the process that started it is killed with SIGKILL, and holds none of that process’s pipes', async () => {
    const worker = spawn(NODE, [here('./harness/worker-with-redis.ts')], { stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => void worker.kill('SIGKILL'));
    const closed = new Promise<void>((resolve) => worker.once('close', () => resolve()));
    let out = '';
    worker.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const pid = await new Promise<number>((resolve, reject) => {
      worker.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /REDIS_PID=(\d+)/.exec(out)?.[1];
        if (found) resolve(Number(found));
      });
      worker.once('exit', (code) => reject(new Error(`the worker exited with ${code} before its redis-server started: ${out}`)));
    });
    expect(isRunning(pid)).toBe(true);
    worker.kill('SIGKILL');
    // 'close': every stdio pipe of the worker is closed, so nothing it started holds one.
    await closed;
    await eventually(() => !isRunning(pid), 10_000, `redis-server ${pid} to end`);
  }, 180_000);

  it('a vitest run whose setup fails half-way and whose teardown throws before stopping its redis-server exits, failed, and the redis-server ends', async () => {
    const run = spawn(NODE, [VITEST, 'run', '--config', here('./harness/vitest.config.ts')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '1' } });
    onTestFinished(() => void run.kill('SIGKILL'));
    let out = '';
    run.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    run.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));
    expect(code, out).toBe(1);
    expect(out).toMatch(/setup failed half-way/);
    expect(out).toMatch(/reading 'close'/);
    const pid = Number(/REDIS_PID=(\d+)/.exec(out)?.[1]);
    expect(pid, out).toBeGreaterThan(0);
    await eventually(() => !isRunning(pid), 10_000, `redis-server ${pid} to end`);
  }, 180_000);
});

describe('a CLI child outlives no test (test/cli/helpers/built-cli.ts)', () => {
  // CI at a load of 25: a test timed out while its CLI child waited on a task; the child went on
  // and submitted into the next test's mock, whose "nothing was sent" then saw a task.
  let pid: number | undefined;
  it('a test that ends while its child runs', async () => {
    void runProcess(process.execPath, ['-e', 'console.log("up"); setInterval(() => {}, 1_000)'], { onStdout: (_text, child) => (pid = child.pid) }).catch(() => {});
    await eventually(() => pid !== undefined, 20_000, 'the child to start');
    expect(isRunning(pid!)).toBe(true);
  });

  it('takes it with it', async () => {
    await eventually(() => !isRunning(pid!), 10_000, 'the child to end');
  });
});
