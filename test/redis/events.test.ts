// The fleet's news (src/redis/events.ts) on a driver of the test's own: when the subscription
// proves itself with a ping, and when it subscribes anew. No Redis: what is asserted is which
// commands and subscriptions the heartbeats ask for.
import { describe, expect, it } from 'vitest';
import type { RedisDriver, Subscription } from '../../src/redis/driver.ts';
import { FleetEvents } from '../../src/redis/events.ts';
import { Outage } from '../../src/redis/outage.ts';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** A driver whose subscriptions listen only when the test says, and whose PUBLISH reaches the ones that listen. */
function fakeDriver() {
  const subscriptions: { listening: boolean; closed: boolean; listen(): void; onMessage(message: string): void }[] = [];
  const published: string[] = [];
  const driver: RedisDriver = {
    cluster: false,
    command: async () => 'OK',
    replicated: async () => ['OK', 0],
    subscribe(_channel, _sharded, onMessage): Subscription {
      let listen!: () => void;
      const ready = new Promise<void>((resolve) => (listen = resolve));
      const entry = {
        listening: false,
        closed: false,
        listen: () => {
          entry.listening = true;
          listen();
        },
        onMessage,
      };
      subscriptions.push(entry);
      return { ready, close: () => void (entry.closed = true) };
    },
  };
  const command = async (...args: (string | number)[]) => {
    if (args[0] === 'PUBLISH') {
      published.push(String(args[2]));
      for (const s of subscriptions) if (s.listening && !s.closed) s.onMessage(String(args[2]));
    }
    return 'OK';
  };
  return { driver, command, subscriptions, published };
}

function fleetEvents() {
  const fake = fakeDriver();
  const outage = new Outage(quiet, 500);
  const events = new FleetEvents({
    driver: () => fake.driver,
    command: fake.command,
    fire: (op) => void op().catch(() => {}),
    outage,
    channel: 'f:{events}',
    resultKey: (id) => `f:result:${id}`,
    progressKey: (id) => `f:progress:${id}`,
    instanceId: 'me',
    onReleased: () => {},
  });
  return { events, ...fake };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FleetEvents: the subscription proves itself', () => {
  // A ping sent before the subscription listened was never heard, and the third beat after it
  // subscribed anew: a gap in which the fleet's news was lost (Redis Cluster tests, about one run
  // in two: "gave up waiting for the news"; the first ping of an instance, 0 heard of 1 sent).
  it('a subscription still connecting is not pinged, so it is not renewed, however many beats pass', async () => {
    const { events, subscriptions, published } = fleetEvents();
    for (let beat = 0; beat < 12; beat++) {
      events.check();
      await tick();
    }
    expect(subscriptions).toHaveLength(1);
    expect(published.filter((m) => m.includes('"ping"'))).toEqual([]);
    // Once it listens, pings go and come back: still one subscription.
    subscriptions[0]!.listen();
    await tick();
    for (let beat = 0; beat < 12; beat++) {
      events.check();
      await tick();
    }
    expect(subscriptions).toHaveLength(1);
    expect(published.filter((m) => m.includes('"ping"')).length).toBeGreaterThan(1);
  });

  it('a listening subscription whose ping does not come back is replaced', async () => {
    const { events, subscriptions } = fleetEvents();
    events.check();
    await tick();
    subscriptions[0]!.listen();
    await tick();
    // The connection drops its messages from now on (a slot moved, a node died).
    subscriptions[0]!.listening = false;
    for (let beat = 0; beat < 8; beat++) {
      events.check();
      await tick();
    }
    expect(subscriptions.length).toBeGreaterThan(1);
    expect(subscriptions[0]!.closed).toBe(true);
  });

  it('a subscription that never listens is replaced after a while, not kept forever', async () => {
    const { events, subscriptions } = fleetEvents();
    for (let beat = 0; beat < 30; beat++) {
      events.check();
      await tick();
    }
    expect(subscriptions.length).toBeGreaterThan(1);
    expect(subscriptions[0]!.closed).toBe(true);
  });
});
