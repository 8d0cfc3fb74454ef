// Ports for the servers the tests start. Every server that can listen on port 0 does, and
// reports the port it got. Only what cannot be told "port 0" gets a port chosen before it binds:
// redis-server (its `--port 0` means "no TCP"), a server that must come back on the port a
// client already has (a restarted Redis, a service that starts during a retry), and a port
// that must refuse connections. Those ports come from below the kernel's ephemeral range: a
// port-0 listener or an outgoing connection's local port is never taken from there, which is
// how a port "free" a moment earlier was taken meanwhile (`listen EADDRINUSE 127.0.0.1:34905`
// beside three CPU burners: the fleet's mock, its port chosen first, then bound).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Linux's ip_local_port_range (its default when unreadable, elsewhere). */
export function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return { low, high };
  } catch {
    // not Linux: the IANA range, and below it is outside it too
  }
  return { low: 32_768, high: 60_999 };
}

/** Whether nothing listens on `port` on loopback now. */
export function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

// Ports handed out by this process: two pickers in one file never get the same one.
const handedOut = new Set<number>();

/**
 * A loopback port nobody listens on now, below the ephemeral range (from 10,000 up), for what
 * must know its port before binding; `plus` are offsets of ports that must be free with it (a
 * Redis Cluster node's bus port is its port + 10,000: `plus: [10_000]`).
 * Whoever binds it must still retry with another on EADDRINUSE: another process's test may
 * have picked the same one.
 */
export async function portBelowEphemeralRange(options: { plus?: number[] } = {}): Promise<number> {
  const plus = options.plus ?? [];
  const top = ephemeralRange().low - 1 - Math.max(0, ...plus);
  const bottom = 10_000;
  if (top <= bottom) throw new Error(`no room below the ephemeral range (${ephemeralRange().low}) for a port + ${Math.max(0, ...plus)}`);
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom));
    const all = [port, ...plus.map((p) => port + p)];
    if (all.some((p) => handedOut.has(p))) continue;
    if ((await Promise.all(all.map(isFree))).every(Boolean)) {
      for (const p of all) handedOut.add(p);
      return port;
    }
  }
  throw new Error('no free loopback port below the ephemeral range after 200 tries');
}
