// The most events within any window of `windowMs` (a sliding window, as a rate-limited service
// counts): the measure of the budget benches and of the fleet tests.
export function peakInWindow(times: readonly number[], windowMs = 1_000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  for (let lo = 0, hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] as number) - (sorted[lo] as number) >= windowMs) lo++;
    peak = Math.max(peak, hi - lo + 1);
  }
  return peak;
}
