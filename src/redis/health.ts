import type { RedisDriver } from './driver.ts';
import { keySlot } from './keys.ts';

/** Slot ranges looked at by one probe, at most (a cluster has a few per master, unless resharded slot by slot). */
const MAX_RANGES = 64;

/**
 * Whether Redis answers, through `driver`, for every key the coordination may touch: the
 * live set's key (`fleetKey`; on one Redis, that is enough), and on a cluster one key in each range of slots a master serves
 * (as CLUSTER SLOTS says now). A client that did not see a failover still routes the moved
 * slots to the dead master, and fails here, so the outage does not end only to start again
 * at the next command for a task there. Rejects when any of them fails.
 */
export async function probeRedis(driver: RedisDriver, fleetKey: string, probePrefix: string): Promise<void> {
  await driver.command(['EXISTS', fleetKey]);
  if (!driver.cluster) return;
  const slots = (await driver.command(['CLUSTER', 'SLOTS'])) as unknown[];
  if (!Array.isArray(slots) || slots.length === 0) throw new Error('CLUSTER SLOTS lists no slot');
  const keys = slots.slice(0, MAX_RANGES).flatMap((range) => {
    const [from, to] = (Array.isArray(range) ? range : []).map(Number);
    const key = from === undefined || to === undefined ? undefined : keyInSlots(probePrefix, from, to);
    return key ? [key] : [];
  });
  await Promise.all(keys.map((key) => driver.command(['EXISTS', key])));
}

/** A key of `prefix` whose slot is within `from..to` (a short search: ranges are rarely small). */
function keyInSlots(prefix: string, from: number, to: number): string | undefined {
  for (let n = 0; n < 50_000; n++) {
    const key = `${prefix}{${n}}`;
    const slot = keySlot(key);
    if (slot >= from && slot <= to) return key;
  }
  return undefined;
}

