// The statistics every bench table reports, defined once so that two tables' p99 or median
// mean the same thing.

/** The nearest-rank percentile `p` (0-100) of `values` (any order); NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** The median of `values` (the mean of the two middle ones for an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Wall-clock µs per call of `call`, run `calls` times one after the other, and this process's
 * CPU µs per call (what the client itself spends: less hurt by a busy machine than wall time).
 */
export async function perCallMicros(call: () => Promise<unknown>, calls: number): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  const wall = ((performance.now() - started) * 1000) / calls;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / calls };
}
