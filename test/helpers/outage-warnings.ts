// What a coordination's logger says of outages: one warning when Redis goes, one line when it
// is back, never one per call. On a loaded machine (or while a cluster fails over) a command
// just after the return may miss its timeout again: a second outage, with its own pair.
import { expect } from 'vitest';

/**
 * `warnings` alternate (unavailable, back, ...), at most `outages` outages: a pair each, the
 * last one possibly still open (a cluster just failed over may drop a connection once more:
 * ECONNRESET after "back", seen in one run in four).
 */
export function expectOutagePairs(warnings: readonly string[], outages: number): void {
  const text = warnings.join('\n');
  warnings.forEach((warning, i) => expect(warning, text).toMatch(i % 2 ? /Redis is back/ : /Redis is unavailable/));
  expect(warnings.length, text).toBeGreaterThanOrEqual(2);
  expect(warnings.length, text).toBeLessThanOrEqual(2 * outages);
}
