// How many task queries a wait sends, and how late it notices the end (detection lag), for
// our default cadence against fixed 3 s and fixed 6 s polling (Runway's), and for a client
// that learned how long tasks of the kind take. The real poller of the built package runs
// against a simulated service on a virtual clock: no real sleeping.
import type { BenchTable } from '../run.ts';
import { freshClient, plannedQueries, SCHEDULES, simulate, type Outcome } from '../lib/cadence-sim.ts';
import { seededRandom } from '../lib/virtual-clock.ts';

const NOMINAL_S = [10, 30, 60, 300, 1_800];
/** Durations per nominal one, evenly spread over ±20 %: many for ours (jitter makes the lag noisy), fewer for the fixed rows. */
const SAMPLES = { ours: 400, fixed: 100 };
/** Targets of the default cadence: mean queries over the ±20 % spread. */
const TARGETS: Record<number, { queries: number }> = { 60: { queries: 13 }, 300: { queries: 30 }, 1_800: { queries: 100 } };
/** Worst case, before jitter: every task from 10 to 120 s noticed at most max(2 s, 25 %) late. */
const WORST_FROM_S = 10;
const WORST_TO_S = 120;
const WORST_STEP_MS = 250;
/** A 30 s task: at most 10 queries, noticed within 8 s (before jitter). */
const THIRTY = { queries: 10, lagMs: 8_000 };

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const yes = (ok: boolean) => (ok ? 'yes' : 'NO');

async function cadenceTable(): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  await simulate(async (clock) => {
    for (const nominal of NOMINAL_S) {
      for (const [row, schedule] of SCHEDULES.entries()) {
        // Each row has its own seeded jitter, independent of the rows before it.
        Math.random = seededRandom(nominal * 10 + row);
        const outcomes: Outcome[] = [];
        const samples = row === 0 ? SAMPLES.ours : SAMPLES.fixed;
        for (let i = 0; i < samples; i++) {
          const durationMs = nominal * 1000 * (0.8 + (0.4 * (i + 0.5)) / samples);
          const { service, client } = freshClient(clock, `kind-${nominal}`);
          outcomes.push(await service.waitOne(client, durationMs, schedule.options));
        }
        const queries = mean(outcomes.map((o) => o.queries));
        const lags = outcomes.map((o) => o.lagMs / 1000);
        const target = TARGETS[nominal];
        const ours = row === 0;
        rows.push([
          `${nominal} s`,
          schedule.name,
          queries.toFixed(1),
          mean(lags).toFixed(2),
          Math.max(...lags).toFixed(2),
          ours && target ? `≤ ${target.queries} queries` : '',
          ours && target ? yes(queries <= target.queries) : '',
        ]);
      }
    }
  });
  return {
    title: 'wait cadence: queries and detection lag (simulated clock, durations ±20 % around nominal)',
    columns: ['task', 'schedule', 'queries (mean)', 'lag s (mean)', 'lag s (worst)', 'target', 'met'],
    rows,
    notes: [
      `Each row: ${SAMPLES.ours} tasks (fixed rows: ${SAMPLES.fixed}) with durations evenly spread over ±20 % of the nominal one, one fresh client each, the real poller of dist/ on a virtual clock (seeded jitter).`,
      'Defaults: first query 3 s after submission; then each gap is 24 % of the task age, at least 2.5 s (interval) and at most 30 s (maxInterval); ±10 % jitter.',
      'Fixed rows run the same poller with interval = maxInterval and the first query at 3 s too (jitter still applies, ±10 % around the fixed gap).',
    ],
  };
}

async function worstCaseTable(): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  for (const schedule of SCHEDULES) {
    // One task past the longest, its queries un-jittered: the first query at or after an end
    // is when that end is noticed.
    const { queryTimes } = await plannedQueries(schedule.options, (WORST_TO_S + 1) * 1000);
    let worst = { ratio: 0, endMs: 0, lagMs: 0 };
    for (let end = WORST_FROM_S * 1000; end <= WORST_TO_S * 1000; end += WORST_STEP_MS) {
      const noticed = queryTimes.find((at) => at >= end) as number;
      const ratio = (noticed - end) / Math.max(2_000, end / 4);
      if (ratio > worst.ratio) worst = { ratio, endMs: end, lagMs: noticed - end };
    }
    const thirty = await plannedQueries(schedule.options, 30_000);
    const ours = schedule === SCHEDULES[0];
    rows.push([
      schedule.name,
      `${(100 * worst.ratio).toFixed(0)} % (a ${(worst.endMs / 1000).toFixed(2)} s task, ${(worst.lagMs / 1000).toFixed(2)} s late)`,
      ours ? yes(worst.ratio <= 1) : '',
      `${thirty.queries} queries, ${(thirty.lagMs / 1000).toFixed(2)} s late`,
      ours ? yes(thirty.queries <= THIRTY.queries && thirty.lagMs <= THIRTY.lagMs) : '',
    ]);
  }
  return {
    title: `wait cadence: worst-case lag for every task from ${WORST_FROM_S} to ${WORST_TO_S} s, and a 30 s task (before jitter)`,
    columns: ['schedule', 'worst lag, share of max(2 s, 25 % of the task)', 'met (≤ 100 %)', 'a 30 s task', 'met (≤ 10, ≤ 8 s)'],
    rows,
    notes: [`Task ends every ${WORST_STEP_MS} ms from ${WORST_FROM_S} to ${WORST_TO_S} s; each is noticed by the first query at or after it.`],
  };
}

async function learningTable(): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  const TRIALS = 100;
  const LEARNED_TARGET = { 60: { queries: 6, lag: 1.5 } } as Record<number, { queries: number; lag: number } | undefined>;
  await simulate(async (clock) => {
    Math.random = seededRandom(7);
    const spread = seededRandom(11);
    for (const nominal of [60, 300]) {
      const learned: Outcome[] = [];
      const plain: Outcome[] = [];
      for (let trial = 0; trial < TRIALS; trial++) {
        const duration = () => nominal * 1000 * (0.9 + 0.2 * spread());
        const { service, client } = freshClient(clock, `omni_flash_720p_${nominal}`);
        for (let i = 0; i < 9; i++) await service.waitOne(client, duration(), {});
        const tenth = duration();
        learned.push(await service.waitOne(client, tenth, {}));
        const fresh = freshClient(clock, `omni_flash_720p_${nominal}`);
        plain.push(await fresh.service.waitOne(fresh.client, tenth, {}));
      }
      for (const [name, outcomes] of [
        ['plain schedule (nothing learned)', plain],
        ['learned (10th task of the model)', learned],
      ] as const) {
        const queries = mean(outcomes.map((o) => o.queries));
        const lag = mean(outcomes.map((o) => o.lagMs)) / 1000;
        const target = name.startsWith('learned') ? LEARNED_TARGET[nominal] : undefined;
        rows.push([
          `${nominal} s ±10 %`,
          name,
          queries.toFixed(1),
          lag.toFixed(2),
          target ? `≤ ${target.queries}, ≤ ${target.lag} s` : '',
          target ? yes(queries <= target.queries && lag <= target.lag) : '',
        ]);
      }
    }
  });
  return {
    title: 'wait cadence: learning typical durations per normalized_model',
    columns: ['task', 'schedule', 'queries (mean)', 'lag s (mean)', 'target', 'met'],
    rows,
    notes: [
      `${TRIALS} trials: a client waits for 9 tasks of one normalized_model (durations uniform within ±10 %), then the 10th is measured; the plain row waits for the same 10th duration on a fresh client.`,
      'Learned window: the range of the last 8 elapsed_s of the kind, widened by 3 % of the median; one query per maxInterval (30 s) before it, then five evenly spaced inside it, or closer when it is wide (at most 3 % of its end apart).',
    ],
  };
}

export default async (): Promise<BenchTable[]> => [await cadenceTable(), await worstCaseTable(), await learningTable()];
