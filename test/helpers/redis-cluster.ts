// A real Redis Cluster for the cluster tests and the fleet bench: 3 masters + 3 replicas of
// Debian's redis-server on free loopback ports below the ephemeral range (test/helpers/ports.ts;
// each with its cluster bus port + 10000; another picked when one was taken meanwhile),
// persistence off, a short cluster-node-timeout so that a killed master's replica is promoted
// within seconds, created by `redis-cli --cluster create ... --cluster-replicas 1`.
// Cleaned up however the run ends: stop() at the end of a file, a process 'exit' hook, and a
// watchdog shell that kills the servers and removes their directory once this process is gone
// (even after a SIGKILL). Without redis-server or redis-cli the tests are skipped with one line
// saying how to run them, unless OMNIMEDIA_REQUIRE_REDIS=1 (CI), which makes that a failure.
// Its commands to the nodes are asynchronous (redis-cli in a child process), so the event loop
// of the coordinations under test never stalls while a test looks at the cluster.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keySlot } from '../../src/redis/keys.ts';
import { portBelowEphemeralRange } from './ports.ts';
import { isPortTaken, spawnRedisServer } from './redis-server.ts';

/** The hash slot of a key, as Redis Cluster computes it (the coordination's own function). */
export { keySlot };

export const CLUSTER_AVAILABLE =
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0 && spawnSync('redis-cli', ['--version'], { stdio: 'ignore' }).status === 0;

if (!CLUSTER_AVAILABLE) {
  if (process.env.OMNIMEDIA_REQUIRE_REDIS === '1')
    throw new Error('redis-server and redis-cli are required (OMNIMEDIA_REQUIRE_REDIS=1): apt-get install redis-server redis-tools');
  console.warn('cluster tests skipped: no redis-server or redis-cli on the PATH (apt-get install redis-server redis-tools)');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Node {
  port: number;
  dir: string;
  process: ChildProcess | undefined;
}

export class RedisCluster {
  readonly nodeTimeoutMs: number;
  readonly #nodes: Node[] = [];
  #root = '';
  #watchdog: ChildProcess | undefined;
  readonly #onExit = () => this.#killAll();

  constructor(options: { nodeTimeoutMs?: number } = {}) {
    this.nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  }

  /** Every node's port (masters and replicas, as created). */
  get ports(): number[] {
    return this.#nodes.map((n) => n.port);
  }

  /** `redis://127.0.0.1:port` of each node: the root nodes a client is given. */
  get urls(): string[] {
    return this.ports.map((port) => `redis://127.0.0.1:${port}`);
  }

  async start(): Promise<void> {
    this.#root = mkdtempSync(join(tmpdir(), 'omnimedia-cluster-'));
    process.once('exit', this.#onExit);
    await Promise.all(Array.from({ length: 6 }, () => this.#launchNew()));
    this.#startWatchdog();
    const created = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...this.ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await this.waitHealthy();
  }

  /** Until every node that runs says cluster_state:ok, all 16384 slots have a master that answers, and every master's replicas are in sync. */
  async waitHealthy(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const running = this.#nodes.filter((n) => n.process);
      const states = await Promise.all(running.map((n) => this.cli(n.port, 'CLUSTER', 'INFO')));
      if (states.every((info) => /cluster_state:ok/.test(info)) && (await this.#slotsCovered())) return;
      if (Date.now() > deadline) throw new Error(`the cluster is not healthy after ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  async #slotsCovered(): Promise<boolean> {
    const masters = await this.masters();
    let covered = 0;
    for (const m of masters) for (const [from, to] of m.slots) covered += to - from + 1;
    const infos = await Promise.all(masters.map((m) => this.cli(m.port, 'INFO', 'replication')));
    const running = this.#nodes.filter((n) => n.process).length;
    // Every running replica is online (in sync) with its master.
    const online = infos.reduce((n, info) => n + (info.match(/state=online/g)?.length ?? 0), 0);
    return covered === 16_384 && infos.every((info) => /role:master/.test(info)) && online === running - masters.length;
  }

  /** One command on one node, its output as text. */
  cli(port: number, ...args: string[]): Promise<string> {
    return new Promise((resolve) => {
      execFile('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', timeout: 5_000 }, (_error, stdout) => resolve(stdout ?? ''));
    });
  }

  /** The masters as the first running node sees them, with their slot ranges. */
  async masters(): Promise<{ port: number; slots: [number, number][] }[]> {
    const probe = this.#nodes.find((n) => n.process);
    if (!probe) return [];
    const lines = (await this.cli(probe.port, 'CLUSTER', 'NODES')).trim().split('\n');
    const masters: { port: number; slots: [number, number][] }[] = [];
    for (const line of lines) {
      const [, address, flags, , , , , state, ...slots] = line.split(' ');
      if (!flags?.includes('master') || flags.includes('fail') || state !== 'connected') continue;
      const port = Number(/:(\d+)@/.exec(address ?? '')?.[1]);
      const ranges = slots
        .filter((s) => !s.startsWith('['))
        .map((s) => {
          const [from, to] = s.split('-').map(Number);
          return [from as number, (to ?? from) as number] as [number, number];
        });
      if (ranges.length > 0) masters.push({ port, slots: ranges });
    }
    return masters;
  }

  /** The ports of the running replicas of the master on `port`. */
  async replicasOf(port: number): Promise<number[]> {
    const id = await this.nodeId(port);
    const lines = (await this.cli(port, 'CLUSTER', 'NODES')).trim().split('\n');
    return lines.flatMap((line) => {
      const [, address, flags, master] = line.split(' ');
      return flags?.includes('slave') && !flags.includes('fail') && master === id ? [Number(/:(\d+)@/.exec(address ?? '')?.[1])] : [];
    });
  }

  /** The port of the master serving `key`'s slot now. */
  async masterOf(key: string): Promise<number> {
    const slot = keySlot(key);
    const master = (await this.masters()).find((m) => m.slots.some(([from, to]) => slot >= from && slot <= to));
    if (!master) throw new Error(`no master serves slot ${slot}`);
    return master.port;
  }

  /** Empty every master (between tests). */
  async flush(): Promise<void> {
    await Promise.all((await this.masters()).map((m) => this.cli(m.port, 'FLUSHALL')));
  }

  /** Commands processed by each master since its start (INFO stats). */
  async commandsProcessed(): Promise<Map<number, number>> {
    const masters = await this.masters();
    const counts = await Promise.all(masters.map(async (m) => Number(/total_commands_processed:(\d+)/.exec(await this.cli(m.port, 'INFO', 'stats'))?.[1] ?? 0)));
    return new Map(masters.map((m, i) => [m.port, counts[i] as number]));
  }

  /** The node id of the node on `port`. */
  async nodeId(port: number): Promise<string> {
    return (await this.cli(port, 'CLUSTER', 'MYID')).trim();
  }

  /**
   * Move one slot (and its keys) to the master on `toPort`, as `redis-cli --cluster reshard`
   * does: IMPORTING/MIGRATING, MIGRATE the keys, then SETSLOT NODE on every master.
   */
  async moveSlot(slot: number, toPort: number): Promise<void> {
    const masters = await this.masters();
    const from = masters.find((m) => m.slots.some(([a, b]) => slot >= a && slot <= b));
    if (!from || from.port === toPort) return;
    const fromId = await this.nodeId(from.port);
    const toId = await this.nodeId(toPort);
    await this.cli(toPort, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId);
    await this.cli(from.port, 'CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId);
    for (;;) {
      const keys = (await this.cli(from.port, 'CLUSTER', 'GETKEYSINSLOT', String(slot), '100')).trim().split('\n').filter(Boolean);
      if (keys.length === 0) break;
      await this.cli(from.port, 'MIGRATE', '127.0.0.1', String(toPort), '', '0', '5000', 'REPLACE', 'KEYS', ...keys);
    }
    for (const m of [{ port: toPort }, from, ...masters.filter((m) => m.port !== toPort && m.port !== from.port)])
      await this.cli(m.port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', toId);
  }

  /** SIGKILL the node on `port` (a master: its replica is promoted after about nodeTimeoutMs + 1 s). */
  async kill(port: number): Promise<void> {
    const node = this.#nodes.find((n) => n.port === port);
    const child = node?.process;
    if (!node || !child) return;
    node.process = undefined;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
  }

  /** Start a killed node again: it rejoins (its nodes.conf) as a replica of whoever took its slots. */
  async restart(port: number): Promise<void> {
    const node = this.#nodes.find((n) => n.port === port);
    if (!node || node.process) return;
    await this.#launch(node);
    this.#startWatchdog();
  }

  async stop(): Promise<void> {
    process.removeListener('exit', this.#onExit);
    await Promise.all(this.#nodes.map((n) => this.kill(n.port)));
    this.#watchdog?.kill('SIGKILL');
    this.#watchdog = undefined;
    if (this.#root) rmSync(this.#root, { recursive: true, force: true });
  }

  /** A node on a port it picks; on another one when that was taken meanwhile (5 tries). */
  async #launchNew(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const port = await portBelowEphemeralRange({ plus: [10_000] });
      const node: Node = { port, dir: join(this.#root, String(port)), process: undefined };
      try {
        await this.#launch(node);
        this.#nodes.push(node);
        return;
      } catch (error) {
        if (attempt >= 5 || !isPortTaken(error)) throw error;
      }
    }
  }

  async #launch(node: Node): Promise<void> {
    mkdirSync(node.dir, { recursive: true });
    node.process = await spawnRedisServer([
      '--port', String(node.port),
      '--bind', '127.0.0.1',
      '--dir', node.dir,
      '--cluster-enabled', 'yes',
      '--cluster-config-file', 'nodes.conf',
      '--cluster-node-timeout', String(this.nodeTimeoutMs),
      // A replica may take over whatever its replication lag (tests kill masters at will).
      '--cluster-replica-validity-factor', '0',
      // Replicas in sync at once (not after the default 5 s of diskless-sync delay).
      '--repl-diskless-sync-delay', '0',
      '--save', '',
      '--appendonly', 'no',
    ]);
  }

  /** Kills the servers and removes their files once this process is gone, however it ended. */
  #startWatchdog(): void {
    this.#watchdog?.kill('SIGKILL');
    const pids = this.#nodes.flatMap((n) => (n.process?.pid ? [n.process.pid] : []));
    const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -9 ${pids.join(' ')} 2>/dev/null; rm -rf '${this.#root}'`;
    const watchdog = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
    watchdog.unref();
    this.#watchdog = watchdog;
  }

  #killAll(): void {
    for (const node of this.#nodes) node.process?.kill('SIGKILL');
    this.#watchdog?.kill('SIGKILL');
    if (this.#root) rmSync(this.#root, { recursive: true, force: true });
  }
}
