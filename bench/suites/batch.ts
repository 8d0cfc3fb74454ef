// `npm run bench -- batch`: many tasks on the built package against the mock service in this
// process, each measure next to its anchor from the same run:
// - 1,000 jobs of 2-10 s, `omnimedia batch --concurrency auto`, a mock admitting RATE
//   submissions a second (429 beyond): wall time against the ideal (jobs ÷ RATE + one task's
//   longest run + the first poll's 3 s; DESIGN 14), target <= 1.15x;
// - the same batch killed with SIGKILL 5 times at random moments, then run to its end:
//   duplicate submissions (accepted POSTs per job beyond one) and result lines;
// - `--dry-run` of 100,000 lines: the CLI's peak RSS, next to a bare `node -e ''` (target <= 96 MiB);
// - BullMQ: 2 worker processes, one killed mid-run, `attempts: 3`: accepted POSTs per job.
// - 200 jobs against a service admitting 15 submissions a second and answering each in 400 ms
//   (a real service's acceptance time): wall time against the ideal (jobs ÷ 15 + one answer +
//   one task's run + the first poll's 3 s), target <= 1.15x, and the most in flight;
// Env: BATCH_JOBS (1000), BATCH_RATE (20 a second), BATCH_ONLY=rate (only the 400 ms measure) or
// auto (the two rate measures).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { REDIS_AVAILABLE, RedisServer } from '../../test/helpers/redis-server.ts';
import type { BenchTable } from '../run.ts';

const JOBS = Number(process.env.BATCH_JOBS ?? 1_000);
const RATE = Number(process.env.BATCH_RATE ?? 20);
const DURATION: [number, number] = [2_000, 10_000];
const CLI = new URL('../../dist/cli.js', import.meta.url).pathname;
const NODE = process.execPath;
const MAXRSS = 'data:text/javascript,process.on("exit",()=>process.stderr.write(`maxrss ${process.resourceUsage().maxRSS}\\n`))';

/**
 * The mock, with every accepted submission counted by its prompt (the job it belongs to);
 * `answerMs`: each submission answered that much later (admitted or not when it arrives).
 */
async function countingMock(
  options: { rate?: number; answerMs?: number; duration?: [number, number] } = {},
): Promise<{ server: MockServer; accepted: Map<string, number>; peakInFlight: () => number }> {
  const server = await startMockServer({ durations: { pending: 0, image: options.duration ?? DURATION }, submissionsPerSecond: options.rate ?? RATE, callbackRetryDelays: [] });
  const accepted = new Map<string, number>();
  const inner = server.mock.handle;
  let inFlight = 0;
  let peak = 0;
  const handle = async (request: Request) => {
    const submission = request.method === 'POST' && new URL(request.url).pathname === '/v1/images/generations';
    const prompt = submission ? String(((await request.clone().json()) as { prompt?: unknown }).prompt) : '';
    if (submission) peak = Math.max(peak, ++inFlight);
    try {
      const response = await inner(request);
      if (submission && options.answerMs) await new Promise((resolve) => setTimeout(resolve, options.answerMs));
      if (submission && response.ok) accepted.set(prompt, (accepted.get(prompt) ?? 0) + 1);
      return response;
    } finally {
      if (submission) inFlight--;
    }
  };
  (server.mock as { handle: typeof handle }).handle = handle;
  return { server, accepted, peakInFlight: () => peak };
}

const duplicates = (accepted: Map<string, number>) => [...accepted.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);

function runCli(args: string[], baseURL: string, cwd: string, killAfterMs?: number): Promise<{ code: number | null; signal: string | null; ms: number; stderr: string }> {
  const started = performance.now();
  const child = spawn(NODE, ['--import', MAXRSS, CLI, 'batch', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', OMNIMEDIA_BASE_URL: baseURL, OMNIMEDIA_API_KEY: 'sk-bench' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => void (stderr += text));
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ms: performance.now() - started, stderr });
    }),
  );
}

async function jobsFile(dir: string, count: number, name = 'jobs.jsonl'): Promise<string> {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ id: `job-${i}`, op: 'images.generate', params: { model: 'omni-image', prompt: `job ${i}`, size: '1024x1024' } }));
  await writeFile(join(dir, name), `${lines.join('\n')}\n`);
  return name;
}

async function resultLines(dir: string): Promise<{ lines: number; ids: number; completed: number; unknown: number }> {
  const parsed = (await readFile(join(dir, 'out', 'results.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string });
  return { lines: parsed.length, ids: new Set(parsed.map((p) => p.id)).size, completed: parsed.filter((p) => p.status === 'completed').length, unknown: parsed.filter((p) => p.status === 'unknown').length };
}

async function bullmq(jobs: number): Promise<{ posts: number; dupes: number; completed: number; failed: number; ms: number } | string> {
  if (!REDIS_AVAILABLE) return 'no redis-server';
  const { Queue } = await import('bullmq');
  const redis = new RedisServer();
  await redis.start();
  const { port } = redis;
  const workers: ChildProcess[] = [];
  const { server, accepted } = await countingMock();
  try {
    const name = 'bench-media';
    // The tests' worker process, here on the built package (no loader: 'omnimedia' is dist/).
    const worker = new URL('../../test/helpers/bullmq-worker.ts', import.meta.url).pathname;
    const start = () =>
      new Promise<ChildProcess>((resolve) => {
        const child = spawn(NODE, [worker, String(port), server.url, name, String(15 * 60_000), '50'], { stdio: ['ignore', 'pipe', 'inherit'] });
        workers.push(child);
        child.stdout?.on('data', (chunk: Buffer) => String(chunk).includes('ready') && resolve(child));
      });
    const [victim] = await Promise.all([start(), start()]);
    const queue = new Queue(name, { connection: { host: '127.0.0.1', port } });
    const started = performance.now();
    await queue.addBulk(Array.from({ length: jobs }, (_, i) => ({ name: `job-${i}`, data: { id: `job-${i}`, op: 'images.generate', params: { model: 'omni-image', prompt: `job ${i}` } }, opts: { attempts: 3, backoff: { type: 'fixed', delay: 500 } } })));
    setTimeout(() => victim?.kill('SIGKILL'), 4_000);
    let counts: Record<string, number> = {};
    for (const deadline = Date.now() + 300_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
      counts = await queue.getJobCounts('completed', 'failed');
      if ((counts.completed ?? 0) + (counts.failed ?? 0) >= jobs) break;
    }
    const ms = performance.now() - started;
    await queue.close();
    return { posts: [...accepted.values()].reduce((a, b) => a + b, 0), dupes: duplicates(accepted), completed: counts.completed ?? 0, failed: counts.failed ?? 0, ms };
  } finally {
    for (const child of workers) child.kill('SIGKILL');
    await redis.stop();
    await server.close();
  }
}

export default async (): Promise<BenchTable> => {
  const rows: (string | number)[][] = [];
  const ideal = (JOBS / RATE + DURATION[1] / 1000 + 3) * 1000;
  const dir = await mkdtemp(join(tmpdir(), 'omnimedia-bench-batch-'));
  try {
    // 0. A service admitting 15 a second, answering each submission in 400 ms.
    {
      const jobs = 200;
      const { server, accepted, peakInFlight } = await countingMock({ rate: 15, answerMs: 400, duration: [2_000, 2_000] });
      const file = await jobsFile(dir, jobs, 'rate.jsonl');
      const run = await runCli([file, '--out', 'rate-out', '--json'], server.url, dir);
      const rateIdeal = (jobs / 15 + 0.4 + 2 + 3) * 1000;
      const refused = server.mock.requests.filter((r) => r.status === 429).length;
      rows.push([
        `${jobs} jobs, a service admitting 15/s and answering in 400 ms, --concurrency auto`,
        `wall ${(run.ms / 1000).toFixed(1)} s; ideal ${(rateIdeal / 1000).toFixed(1)} s`,
        `${(run.ms / rateIdeal).toFixed(2)}x ideal (target <= 1.15x); peak ${peakInFlight()} in flight; ${refused} 429s; ${accepted.size} jobs accepted, ${duplicates(accepted)} duplicates; exit ${run.code}`,
      ]);
      await server.close();
      if (process.env.BATCH_ONLY === 'rate') return { title: 'Many tasks: rate pacing', columns: ['measure', 'result', 'against'], rows };
    }
    // 1. The whole batch, at the rate the mock admits.
    {
      const { server, accepted } = await countingMock();
      const file = await jobsFile(dir, JOBS);
      const run = await runCli([file, '--out', 'out', '--json'], server.url, dir);
      const results = await resultLines(dir);
      const refused = server.mock.requests.filter((r) => r.status === 429).length; // the last 1,000 requests' only
      rows.push([`${JOBS} jobs of 2-10 s, --concurrency auto, ${RATE}/s admitted (429 beyond)`, `wall ${(run.ms / 1000).toFixed(1)} s; ideal ${(ideal / 1000).toFixed(1)} s`, `${(run.ms / ideal).toFixed(2)}x ideal (target <= 1.15x); ${results.completed}/${JOBS} completed, ${duplicates(accepted)} duplicates, ${refused} of the last 1,000 requests were 429`]);
      await server.close();
      await rm(join(dir, 'out'), { recursive: true, force: true });
      if (process.env.BATCH_ONLY === 'auto') return { title: 'Many tasks: rate pacing and the 1,000-job batch', columns: ['measure', 'result', 'against'], rows };
    }
    // 2. Killed 5 times at random moments, then run to its end.
    {
      const { server, accepted } = await countingMock();
      const kills: number[] = [];
      for (let i = 0; i < 5; i++) {
        const at = 1_500 + Math.round(Math.random() * 6_000);
        kills.push(at);
        await runCli(['jobs.jsonl', '--out', 'out', '--json'], server.url, dir, at);
      }
      const last = await runCli(['jobs.jsonl', '--out', 'out', '--json'], server.url, dir);
      const results = await resultLines(dir);
      rows.push([`5 SIGKILLs (after ${kills.map((k) => (k / 1000).toFixed(1)).join(', ')} s), then resumed`, `${duplicates(accepted)} duplicate submissions; ${results.lines} result lines (${results.ids} ids)`, `${results.completed} completed, ${results.unknown} unknown (sent, no answer: not sent again); exit ${last.code}; target 0 duplicates, ${JOBS} results`]);
      await server.close();
    }
    // 3. --dry-run of 100,000 lines: peak RSS, next to bare Node.
    {
      const file = await jobsFile(dir, 100_000, 'big.jsonl');
      const bare = spawnSync(NODE, ['--import', MAXRSS, '-e', ''], { encoding: 'utf8' });
      const bareKiB = Number(/maxrss (\d+)/.exec(bare.stderr)?.[1]);
      const run = await runCli([file, '--dry-run', '--json'], 'http://127.0.0.1:9', dir);
      const peakKiB = Number(/maxrss (\d+)/.exec(run.stderr)?.[1]);
      rows.push(['--dry-run of 100,000 lines', `peak RSS ${(peakKiB / 1024).toFixed(1)} MiB in ${(run.ms / 1000).toFixed(1)} s (exit ${run.code})`, `bare node -e '': ${(bareKiB / 1024).toFixed(1)} MiB; target <= 96 MiB`]);
    }
    // 4. BullMQ across two worker processes, one killed.
    {
      const found = await bullmq(Math.min(JOBS, 300));
      rows.push(
        typeof found === 'string'
          ? ['BullMQ, 2 workers, 1 killed, attempts 3', found, '']
          : [`BullMQ, 2 workers (one killed at 4 s), attempts 3, ${Math.min(JOBS, 300)} jobs`, `${found.posts} accepted POSTs, ${found.dupes} duplicates`, `${found.completed} completed, ${found.failed} failed (unknown: killed between send and answer) in ${(found.ms / 1000).toFixed(1)} s; target 1 POST per job`],
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { title: 'Many tasks: omnimedia batch, resume after SIGKILL, --dry-run memory, BullMQ', columns: ['measure', 'result', 'against'], rows };
};
