// How many task queries a wait sends, and how late it notices the end (detection lag), for
// our default cadence against fixed 3 s and fixed 6 s polling (Runway's), and for a client
// that learned how long tasks of the kind take. The real poller of the built package runs
// against a simulated service on a virtual clock: no real sleeping.
import { OmniMedia, type WaitOptions } from 'omnimedia';
import type { BenchTable } from '../run.ts';
import { seededRandom, VirtualClock } from '../lib/virtual-clock.ts';

const NOMINAL_S = [10, 60, 300, 1_800];
/** Durations per nominal one, evenly spread over ±20 %: many for ours (jitter makes the lag noisy), fewer for the fixed rows. */
const SAMPLES = { ours: 400, fixed: 100 };
const TARGETS: Record<number, { queries: number; lag?: number }> = {
  60: { queries: 12, lag: 7 },
  300: { queries: 27, lag: 8 },
  1_800: { queries: 130 },
};

interface Outcome {
  queries: number;
  lagMs: number;
}

/**
 * A simulated service where each submitted task completes `nextDuration()` ms after its
 * submission; reports each task's elapsed_s and counts task queries.
 */
function simulatedService(clock: VirtualClock, model: string) {
  const tasks = new Map<string, { createdAt: number; durationMs: number }>();
  let nextDuration = 0;
  let queries = 0;
  let seq = 0;
  const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const path = new URL(request.url).pathname;
    if (request.method === 'POST') {
      const id = `task-${++seq}`;
      tasks.set(id, { createdAt: clock.now, durationMs: nextDuration });
      return Response.json(
        { task_id: id, status: 'pending', model: 'omni_flash', normalized_model: model, created_at: Math.floor(clock.now / 1000) },
        { status: 202 },
      );
    }
    queries++;
    const id = decodeURIComponent(path.split('/').at(-1) ?? '');
    const task = tasks.get(id);
    if (!task) return Response.json({ error: 'not found' }, { status: 404 });
    const done = clock.now - task.createdAt >= task.durationMs;
    return Response.json(
      done
        ? { task_id: id, status: 'completed', normalized_model: model, elapsed_s: Math.round(task.durationMs / 1000), data: [{ url: 'https://cdn.test/x.mp4' }] }
        : { task_id: id, status: 'processing', normalized_model: model },
    );
  };
  return {
    fetch,
    /** Submit a task lasting `durationMs` and wait for it; the queries and the detection lag. */
    async waitOne(client: OmniMedia, durationMs: number, options: WaitOptions): Promise<Outcome> {
      nextDuration = durationMs;
      // The 1,800 s tasks run past the 30-minute default deadline.
      options = { timeout: 4 * 3_600_000, ...options };
      const before = queries;
      const submittedAt = clock.now;
      await clock.run(client.videos.generate({ prompt: 'a fox', seconds: 10 }).wait(options));
      return { queries: queries - before, lagMs: clock.now - (submittedAt + durationMs) };
    },
  };
}

const SCHEDULES: { name: string; options: WaitOptions }[] = [
  { name: 'omnimedia defaults', options: {} },
  { name: 'fixed 3 s', options: { initialDelay: 3_000, interval: 3_000, maxInterval: 3_000, learn: false } },
  { name: 'fixed 6 s (Runway)', options: { initialDelay: 3_000, interval: 6_000, maxInterval: 6_000, learn: false } },
];

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

async function simulate<T>(fn: (clock: VirtualClock) => Promise<T>): Promise<T> {
  const clock = new VirtualClock().install();
  const random = Math.random;
  try {
    return await fn(clock);
  } finally {
    Math.random = random;
    clock.uninstall();
  }
}

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
          // A fresh client per task: nothing learned, nothing shared.
          const service = simulatedService(clock, `kind-${nominal}`);
          const client = new OmniMedia({ apiKey: 'sk-bench', baseURL: 'http://sim.invalid', fetch: service.fetch, logLevel: 'off' });
          outcomes.push(await service.waitOne(client, durationMs, schedule.options));
        }
        const queries = mean(outcomes.map((o) => o.queries));
        const lag = mean(outcomes.map((o) => o.lagMs)) / 1000;
        const target = TARGETS[nominal];
        const ours = schedule.name === 'omnimedia defaults';
        const met =
          ours && target ? (queries <= target.queries && (target.lag === undefined || lag <= target.lag) ? 'yes' : 'NO') : '';
        rows.push([
          `${nominal} s`,
          schedule.name,
          queries.toFixed(1),
          lag.toFixed(2),
          ours && target ? `≤ ${target.queries}${target.lag ? `, ≤ ${target.lag} s` : ''}` : '',
          met,
        ]);
      }
    }
  });
  return {
    title: 'wait cadence: queries and detection lag (simulated clock, durations ±20 % around nominal)',
    columns: ['task', 'schedule', 'queries (mean)', 'lag s (mean)', 'target', 'met'],
    rows,
    notes: [
      `Each row: ${SAMPLES.ours} tasks (fixed rows: ${SAMPLES.fixed}) with durations evenly spread over ±20 % of the nominal one, one fresh client each, the real poller of dist/ on a virtual clock (seeded jitter).`,
      'Defaults: first query 3 s after submission; gaps 3 s ×1.5 per query, capped at max(14 s, 4 % of the task age) and 30 s; ±10 % jitter.',
      'Fixed rows run the same poller with interval = maxInterval and the first query at 3 s too (jitter still applies, ±10 % around the fixed gap).',
    ],
  };
}

async function learningTable(): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  const TRIALS = 100;
  await simulate(async (clock) => {
    Math.random = seededRandom(7);
    const spread = seededRandom(11);
    for (const nominal of [60, 300]) {
      const learned: Outcome[] = [];
      const plain: Outcome[] = [];
      for (let trial = 0; trial < TRIALS; trial++) {
        const duration = () => nominal * 1000 * (0.9 + 0.2 * spread());
        const service = simulatedService(clock, `omni_flash_720p_${nominal}`);
        const client = new OmniMedia({ apiKey: 'sk-bench', baseURL: 'http://sim.invalid', fetch: service.fetch, logLevel: 'off' });
        for (let i = 0; i < 9; i++) await service.waitOne(client, duration(), {});
        const tenth = duration();
        learned.push(await service.waitOne(client, tenth, {}));
        const fresh = simulatedService(clock, `omni_flash_720p_${nominal}`);
        const freshClient = new OmniMedia({ apiKey: 'sk-bench', baseURL: 'http://sim.invalid', fetch: fresh.fetch, logLevel: 'off' });
        plain.push(await fresh.waitOne(freshClient, tenth, {}));
      }
      for (const [name, outcomes] of [
        ['plain schedule (nothing learned)', plain],
        ['learned (10th task of the model)', learned],
      ] as const) {
        rows.push([
          `${nominal} s ±10 %`,
          name,
          mean(outcomes.map((o) => o.queries)).toFixed(1),
          (mean(outcomes.map((o) => o.lagMs)) / 1000).toFixed(2),
        ]);
      }
    }
  });
  return {
    title: 'wait cadence: learning typical durations per normalized_model',
    columns: ['task', 'schedule', 'queries (mean)', 'lag s (mean)'],
    rows,
    notes: [
      `${TRIALS} trials: a client waits for 9 tasks of one normalized_model (durations uniform within ±10 %), then the 10th is measured; the plain row waits for the same 10th duration on a fresh client.`,
      'Learned window: the range of the last 8 elapsed_s of the kind, widened by 3 % of the median; one query per maxInterval (30 s) before it, then five evenly spaced inside it, or closer when it is wide (at most 3 % of its end apart).',
    ],
  };
}

export default async (): Promise<BenchTable[]> => [await cadenceTable(), await learningTable()];
