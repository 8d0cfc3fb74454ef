// The parent side of the fleet tests: a mock service on loopback whose every request is
// logged (the budget and query counts are read at the service), and instances in child
// processes (test/helpers/fleet-instance.ts) driven over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WaitOptions } from 'omnimedia';
import { createMockService, startMockServer, type MockDurations, type MockServer, type MockService } from 'omnimedia/testing';
import { peakInWindow } from '../../bench/lib/peak-window.ts';
import { owned } from './owned-process.ts';

const HOOK = fileURLToPath(new URL('./omnimedia-from-src.mjs', import.meta.url));
const INSTANCE = fileURLToPath(new URL('./fleet-instance.ts', import.meta.url));

export interface LoggedRequest {
  method: string;
  path: string;
  at: number;
}

/**
 * The mock service, every request it answers logged with the time it arrived. Its server
 * listens on port 0; the mock (whose baseURL is the server's) is made once the port is known.
 */
export async function startLoggedMock(durations: Partial<MockDurations>): Promise<{ server: MockServer; mock: MockService; log: LoggedRequest[] }> {
  let mock: MockService | undefined;
  const log: LoggedRequest[] = [];
  // The server calls handle() and close() only; everything else is the mock itself.
  const logged = {
    handle: (request: Request) => {
      log.push({ method: request.method, path: new URL(request.url).pathname, at: Date.now() });
      if (!mock) return new Response('the logged mock is not ready', { status: 503 });
      return mock.handle(request);
    },
    close: () => mock?.close(),
  } as unknown as MockService;
  const server = await startMockServer({ mock: logged });
  mock = createMockService({ baseURL: server.url, durations });
  return { server, mock, log };
}

/** Task queries (GET /v1/tasks/...) in the log, optionally of one task. */
export const taskQueries = (log: LoggedRequest[], id?: string) =>
  log.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/tasks/') && (id === undefined || r.path.endsWith(`/${id}`)));

/** The most requests that arrived within any window of `ms`. */
export const peakOfRequests = (requests: LoggedRequest[], ms = 1_000): number => peakInWindow(requests.map((r) => r.at), ms);

export interface InstanceMessage {
  event: 'ready' | 'resolved' | 'rejected' | 'onTask' | 'log';
  id?: string;
  status?: string;
  at?: number;
  error?: string;
  message?: string;
}

/**
 * Wait options for a wait by id that queries once, at once, and not again for a minute (past
 * every test's end): such a wait that ends proves another instance's news reached it.
 */
export const NEXT_QUERY_IN_A_MINUTE = { interval: 60_000, maxInterval: 60_000, learn: false };

/** One instance of the fleet in a child process. */
export class FleetInstance {
  readonly messages: InstanceMessage[] = [];
  readonly #child: ChildProcess;
  readonly #replies = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #listeners = new Set<() => void>();
  #seq = 0;
  callbackURL = '';

  constructor() {
    this.#child = owned(fork(INSTANCE, [], { execArgv: ['--import', HOOK], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] }), { forwardStdout: true });
    this.#child.on('message', (message: InstanceMessage & { reply?: number; result?: unknown; error?: string }) => {
      if (message.reply !== undefined) {
        const pending = this.#replies.get(message.reply);
        this.#replies.delete(message.reply);
        if (message.error) pending?.reject(new Error(message.error));
        else pending?.resolve(message.result);
        return;
      }
      this.messages.push(message);
      for (const listener of [...this.#listeners]) listener();
    });
  }

  static async start(options: {
    redisUrl: string;
    redisClient: 'node-redis' | 'ioredis';
    cluster?: boolean;
    prefix?: string;
    baseURL: string;
    maxPollsPerSecond?: number;
    leaseMs?: number;
    /** The coordination's `commandTimeoutMs` (its default, 500 ms, when not given). */
    commandTimeoutMs?: number;
  }): Promise<FleetInstance> {
    const instance = new FleetInstance();
    await instance.until((m) => m.event === 'ready');
    const { callbackURL } = (await instance.call({ type: 'init', maxPollsPerSecond: 20, leaseMs: 1_500, ...options })) as { callbackURL: string };
    instance.callbackURL = callbackURL;
    return instance;
  }

  call(command: Record<string, unknown>): Promise<unknown> {
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#replies.set(id, { resolve, reject });
      this.#child.send({ id, command });
    });
  }

  async submit(count: number, withCallback = false): Promise<string[]> {
    return ((await this.call({ type: 'submit', count, withCallback })) as { ids: string[] }).ids;
  }

  async wait(ids: string[], options: WaitOptions = {}): Promise<void> {
    await this.call({ type: 'wait', ids, options });
  }

  async pending(): Promise<string[]> {
    return ((await this.call({ type: 'pending' })) as { pending: string[] }).pending;
  }

  /** Its `pending()` once it lists `count` tasks (a dead owner's lease must run out first), or as it is after `timeoutMs`. */
  async pendingOnce(count: number, timeoutMs = 10_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    let pending = await this.pending();
    while (pending.length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      pending = await this.pending();
    }
    return pending;
  }

  /** Resolves with the first message (past or future) that `match` accepts. */
  until(match: (message: InstanceMessage) => boolean, timeoutMs = 60_000): Promise<InstanceMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.find(match);
        if (!found) return false;
        this.#listeners.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(check);
        reject(new Error(`no such message within ${timeoutMs} ms`));
      }, timeoutMs);
      if (!check()) this.#listeners.add(check);
    });
  }

  resolved(): InstanceMessage[] {
    return this.messages.filter((m) => m.event === 'resolved');
  }

  kill(): void {
    this.#child.kill('SIGKILL');
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    await this.call({ type: 'close' }).catch(() => {});
    this.#child.kill();
  }
}

/** Wait until `condition()` holds, checking every 20 ms (real time: processes and sockets). */
export async function eventually(condition: () => boolean, timeoutMs = 60_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
