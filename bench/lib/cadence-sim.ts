// The simulated service of the cadence benchmarks and chart: each submitted task completes a
// set time after its submission; every task query is recorded. The real poller of the built
// package (dist/) runs against it on a virtual clock.
import { OmniMedia, type WaitOptions } from 'omnimedia';
import { VirtualClock } from './virtual-clock.ts';

export interface Outcome {
  queries: number;
  lagMs: number;
  /** ms after the submission of each query. */
  queryTimes: number[];
}

/** A simulated service where each submitted task completes `durationMs` after its submission. */
export function simulatedService(clock: VirtualClock, model: string) {
  const tasks = new Map<string, { createdAt: number; durationMs: number }>();
  let nextDuration = 0;
  let seq = 0;
  let times: number[] = [];
  let submittedAt = 0;
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
    times.push(clock.now - submittedAt);
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
    /** Submit a task lasting `durationMs` and wait for it: its queries and the detection lag. */
    async waitOne(client: OmniMedia, durationMs: number, options: WaitOptions): Promise<Outcome> {
      nextDuration = durationMs;
      // The 1,800 s tasks run past the 30-minute default deadline.
      options = { timeout: 4 * 3_600_000, ...options };
      times = [];
      submittedAt = clock.now;
      await clock.run(client.videos.generate({ prompt: 'a fox', seconds: 10 }).wait(options));
      return { queries: times.length, lagMs: clock.now - (submittedAt + durationMs), queryTimes: times };
    },
  };
}

/** A fresh client on a fresh simulated service: nothing learned, nothing shared. */
export function freshClient(clock: VirtualClock, model: string) {
  const service = simulatedService(clock, model);
  const client = new OmniMedia({ apiKey: 'sk-bench', baseURL: 'http://sim.invalid', fetch: service.fetch, logLevel: 'off' });
  return { service, client };
}

/** Run `fn` with the virtual clock installed (and Math.random restored after). */
export async function simulate<T>(fn: (clock: VirtualClock) => Promise<T>): Promise<T> {
  const clock = new VirtualClock().install();
  const random = Math.random;
  try {
    return await fn(clock);
  } finally {
    Math.random = random;
    clock.uninstall();
  }
}

/** The schedules compared: ours, fixed 3 s, fixed 6 s (Runway's). */
export const SCHEDULES: { name: string; options: WaitOptions }[] = [
  { name: 'omnimedia defaults', options: {} },
  { name: 'fixed 3 s', options: { initialDelay: 3_000, interval: 3_000, maxInterval: 3_000, learn: false } },
  { name: 'fixed 6 s (Runway)', options: { initialDelay: 3_000, interval: 6_000, maxInterval: 6_000, learn: false } },
];

/** The un-jittered query times of one schedule along a task of `durationMs` (jitter at its midpoint). */
export async function plannedQueries(options: WaitOptions, durationMs: number): Promise<Outcome> {
  return simulate(async (clock) => {
    Math.random = () => 0.5;
    const { service, client } = freshClient(clock, 'planned');
    return service.waitOne(client, durationMs, options);
  });
}
