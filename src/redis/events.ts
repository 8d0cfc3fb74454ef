import { MemoryTaskEvents } from '../coordination/memory.ts';
import type { TaskEventBus, TaskListener } from '../coordination/ports.ts';
import type { TaskResult } from '../schemas/task.ts';
import { isTerminalStatus } from '../waiting/status.ts';
import { storedJson, type RedisDriver, type Subscription } from './driver.ts';
import type { Outage } from './outage.ts';

const DAY_MS = 24 * 3_600_000;
/**
 * How long a task's last status seen is kept for the streams that open later (a proxy's first
 * event without a read), ms: a task's lease holder publishes each change, and one that has not
 * changed for this long is read again by the first stream that finds nothing.
 */
const PROGRESS_MS = 10 * 60_000;
/** Heartbeats between two pings the subscription sends itself. */
const PING_EVERY = 3;
/** Heartbeats a subscription may take to listen before it is made anew (it may never connect). */
const LISTEN_WITHIN = 4 * PING_EVERY;

/** What the fleet's news need of their coordination. */
export interface EventsPorts {
  /** The client commands go through now (the caller's, or a fresh one after a failover it missed). */
  driver(): RedisDriver;
  command(...args: (string | number)[]): Promise<unknown>;
  fire(op: () => Promise<unknown>): void;
  outage: Outage;
  channel: string;
  resultKey(taskId: string): string;
  /** Where a task's last status seen is kept, while it runs. */
  progressKey(taskId: string): string;
  instanceId: string;
  /** Another instance gave up the lease of a task. */
  onReleased(taskId: string): void;
}

/** What goes on the channel: an ended task, a lease given up, or an instance's ping to itself. */
interface Message {
  from: string;
  task?: TaskResult;
  released?: string;
  ping?: number;
}

/**
 * The fleet's news on Redis. An ended task is kept a day (`result` key, for the waits that
 * start later), a status seen on the way ten minutes (`progress` key, for the proxy's streams
 * that open later), and either is published on the fleet's channel. On a cluster whose servers have it (Redis
 * 7), the channel is sharded (SPUBLISH/SSUBSCRIBE): a message goes to the channel's shard
 * only, not over the cluster bus to every node as a classic PUBLISH does, and the subscriber
 * connects to that shard (the client follows it when the slot moves or fails over). Either
 * way the subscription proves itself: every third heartbeat it sends itself a ping, and one
 * that did not come back by the next makes it subscribe anew.
 */
export class FleetEvents implements TaskEventBus {
  readonly #ports: EventsPorts;
  readonly #local = new MemoryTaskEvents();
  #subscription: Subscription | undefined;
  /** The current subscription listens (its `ready` settled): only then is it pinged. */
  #listening = false;
  /** Heartbeats the current subscription has been connecting. */
  #connecting = 0;
  #sharded: Promise<boolean> | undefined;
  #beats = 0;
  #pingSent = 0;
  #pingHeard = 0;

  constructor(ports: EventsPorts) {
    this.#ports = ports;
  }

  publish(task: TaskResult): void {
    this.#local.publish(task);
    // An ended task is kept a day for the waits that start later; a status seen on the way, a
    // while, for the streams that open later (a proxy's: waits take only an end as news).
    const ended = isTerminalStatus(task.status);
    const message = JSON.stringify({ from: this.#ports.instanceId, task });
    const key = ended ? this.#ports.resultKey(task.task_id) : this.#ports.progressKey(task.task_id);
    this.#ports.fire(() =>
      // Both at once (one round trip): a listener uses the message; a later one reads the key.
      Promise.all([this.#ports.command('SET', key, JSON.stringify(task), 'PX', ended ? DAY_MS : PROGRESS_MS), this.#send(message)]),
    );
  }

  subscribe(taskId: string, listener: TaskListener): () => void {
    return this.#local.subscribe(taskId, listener);
  }

  latest(taskId: string): Promise<TaskResult | undefined> {
    return this.#stored(this.#ports.resultKey(taskId));
  }

  /** The ended task, else the last status seen (two keys, two slots: two reads at once). */
  async current(taskId: string): Promise<TaskResult | undefined> {
    const [ended, running] = await Promise.all([this.latest(taskId), this.#stored(this.#ports.progressKey(taskId))]);
    return ended ?? running;
  }

  #stored(key: string): Promise<TaskResult | undefined> {
    return this.#ports.outage.run(
      async () => {
        const task = storedJson<TaskResult>(await this.#ports.command('GET', key));
        return typeof task?.task_id === 'string' && typeof task.status === 'string' ? task : undefined;
      },
      () => undefined,
    );
  }

  /** Tell the fleet this instance gave up the lease of `taskId`. */
  released(taskId: string): void {
    this.#ports.fire(() => this.#send(JSON.stringify({ from: this.#ports.instanceId, released: taskId })));
  }

  /**
   * At each heartbeat (Redis up): listen if not listening, and prove the subscription now and
   * then, once it listens: a ping sent while it still connected was never heard, and the renewal
   * it caused left a gap in which the fleet's news was lost (a Redis Cluster test, one run in two).
   */
  check(): void {
    if (!this.#subscription) return this.#subscribe();
    if (!this.#listening) {
      if (++this.#connecting >= LISTEN_WITHIN) this.renew();
      return;
    }
    if (this.#beats++ % PING_EVERY !== 0) return;
    // The last ping never came back: the subscription is gone (a slot moved, a node died).
    if (this.#pingHeard < this.#pingSent) return this.renew();
    const ping = ++this.#pingSent;
    this.#ports.fire(() => this.#send(JSON.stringify({ from: this.#ports.instanceId, ping })));
  }

  /** Subscribe anew (after an outage, or a ping that did not come back). */
  renew(): void {
    this.#subscription?.close();
    this.#subscription = undefined;
    this.#listening = false;
    this.#sharded = undefined;
    this.#pingHeard = this.#pingSent;
    this.#subscribe();
  }

  close(): void {
    this.#subscription?.close();
    this.#subscription = undefined;
    this.#listening = false;
  }

  /** Listen on a connection of our own. A failure is part of the outage (one warning); the heartbeat subscribes again. */
  #subscribe(): void {
    let inner: Subscription | undefined;
    let closed = false;
    const ready = this.#mode().then((sharded) => {
      if (closed) return;
      // Only the current subscription is heard: one replaced (renewed after an outage) may still deliver.
      inner = this.#ports.driver().subscribe(this.#ports.channel, sharded, (message) => this.#subscription === subscription && this.#onMessage(message));
      return inner.ready;
    });
    const subscription: Subscription = {
      ready,
      close: () => {
        closed = true;
        inner?.close();
      },
    };
    this.#subscription = subscription;
    this.#connecting = 0;
    ready.then(
      () => {
        if (this.#subscription !== subscription) return;
        this.#listening = true;
        // The first ping goes at the next beat.
        this.#beats = 0;
      },
      () => {},
    );
    ready.catch((error: unknown) => {
      subscription.close();
      if (this.#subscription === subscription) this.#subscription = undefined;
      this.#ports.outage.fail(error);
    });
  }

  /** Sharded pub/sub on a cluster whose servers have it; classic otherwise. Every instance decides alike. */
  #mode(): Promise<boolean> {
    if (!this.#ports.driver().cluster) return Promise.resolve(false);
    this.#sharded ??= this.#ports.command('COMMAND', 'INFO', 'SPUBLISH').then(
      (reply) => Array.isArray(reply) && reply.some((entry) => Array.isArray(entry) || (entry !== null && typeof entry === 'object')),
      (error: unknown) => {
        this.#sharded = undefined;
        throw error;
      },
    );
    return this.#sharded;
  }

  async #send(message: string): Promise<unknown> {
    return this.#ports.command((await this.#mode()) ? 'SPUBLISH' : 'PUBLISH', this.#ports.channel, message);
  }

  #onMessage(raw: string): void {
    const message = storedJson<Message>(raw);
    if (!message || typeof message.from !== 'string') return;
    if (message.from === this.#ports.instanceId) {
      if (typeof message.ping === 'number') this.#pingHeard = Math.max(this.#pingHeard, message.ping);
      return;
    }
    if (typeof message.released === 'string') this.#ports.onReleased(message.released);
    const task = message.task;
    if (task && typeof task.task_id === 'string') this.#local.publish(task);
  }
}
