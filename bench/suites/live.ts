// Live pages (DESIGN 12): task events through omnimedia/proxy. Two proxy processes (the build,
// bench/helpers/live-proxy-child.ts: the proxy and the server's callback handler on one
// coordination) on a local redis-server, in front of the mock service in this process, which
// counts every task query. Pages are this process's fetches reading the streams as a browser
// does. Needs redis-server (Debian's package).
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { OmniMedia } from 'omnimedia';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { REDIS_AVAILABLE, RedisServer } from '../../test/helpers/redis-server.ts';
import { sseParser } from '../../src/transport/sse.ts';
import type { BenchTable } from '../run.ts';
import { percentile } from '../lib/stats.ts';

const MiB = 1024 * 1024;
const PAGES = 100;
/** The task's run: 1 s pending, then 14 s: a video's order of time, short enough for a bench. */
const DURATIONS = { pending: 1_000, image: 14_000 };
const CALLBACK_TASKS = 20;
const STREAMS = Number(process.env.STREAMS ?? 1_000);

interface Child {
  process: ChildProcess;
  url: string;
}

async function startChild(baseURL: string, redisURL: string, callbacks: boolean): Promise<Child> {
  const child = fork(new URL('../helpers/live-proxy-child.ts', import.meta.url), [baseURL, redisURL, callbacks ? 'callbacks' : 'polls'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, '--expose-gc'],
  });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  return { process: child, url: `http://127.0.0.1:${port}/api/omnimedia` };
}

async function stopChild(child: Child): Promise<void> {
  const exited = once(child.process, 'exit');
  child.process.disconnect();
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000).unref())]);
  if (child.process.exitCode === null) child.process.kill();
}

async function rss(child: Child): Promise<number> {
  child.process.send('rss');
  const [{ rss: bytes }] = (await once(child.process, 'message')) as [{ rss: number }];
  return bytes;
}

/** A page following a task: each status with its arrival time; `done` once the stream ended. */
function page(url: string, taskId: string, user = 'bench') {
  const heard: { status: string; at: number }[] = [];
  const controller = new AbortController();
  const done = (async () => {
    const response = await fetch(`${url}/v1/tasks/${taskId}/events`, { headers: { 'x-user': user }, signal: controller.signal });
    if (response.status !== 200) throw new Error(`events: ${response.status} ${await response.text()}`);
    const feed = sseParser(({ event, data }) => event === 'task' && heard.push({ status: (JSON.parse(data) as { status: string }).status, at: Date.now() }));
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) feed(decoder.decode(chunk, { stream: true }));
  })().catch((error: unknown) => {
    if (!controller.signal.aborted) throw error;
  });
  return { heard, done, close: () => controller.abort() };
}

async function submit(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/images/generations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"omni-image","prompt":"p"}' });
  return ((await response.json()) as { task_id: string }).task_id;
}

const queriesOf = (mock: MockServer, taskId: string) => mock.mock.requests.filter((r) => r.method === 'GET' && r.path === `/v1/tasks/${taskId}`);

/** `PAGES` pages on one task, half on each instance, opened over the first second; the task queries the service saw. */
async function hundredPages(mock: MockServer, a: Child, b: Child): Promise<{ queries: number; waiter: number }> {
  const taskId = await submit(a.url);
  // One waiter beside it, for scale: a server-side .wait() on a task submitted at the same time.
  const alone = new OmniMedia({ apiKey: 'sk-bench', baseURL: mock.url, logLevel: 'off' });
  const waited = alone.images.generate({ model: 'omni-image', prompt: 'p' }).then(async (s) => (await alone.tasks.wait(s.task_id), s.task_id));
  const pages = [];
  for (let i = 0; i < PAGES; i++) {
    pages.push(page(i % 2 ? b.url : a.url, taskId));
    await new Promise((resolve) => setTimeout(resolve, 1_000 / PAGES));
  }
  await Promise.all(pages.map((p) => p.done));
  const waiterTask = await waited;
  if (pages.some((p) => p.heard.at(-1)?.status !== 'completed')) throw new Error('a page did not see the end');
  return { queries: queriesOf(mock, taskId).length, waiter: queriesOf(mock, waiterTask).length };
}

/** With callbacks: `CALLBACK_TASKS` tasks submitted through A, five pages on B each; the end seen on B after A's verifying read. */
async function callbackLag(mock: MockServer, a: Child, b: Child): Promise<{ lags: number[]; queries: number[] }> {
  const lags: number[] = [];
  const queries: number[] = [];
  await Promise.all(
    Array.from({ length: CALLBACK_TASKS }, async () => {
      const taskId = await submit(a.url);
      const first = page(a.url, taskId);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pages = Array.from({ length: 5 }, () => page(b.url, taskId));
      await Promise.all([first.done, ...pages.map((p) => p.done)]);
      const reads = queriesOf(mock, taskId);
      queries.push(reads.length);
      const verified = reads.at(-1)?.at ?? 0;
      for (const p of pages) lags.push((p.heard.at(-1)?.at ?? Number.NaN) - verified);
    }),
  );
  return { lags, queries };
}

/** `STREAMS` open streams on one instance (100 tasks, ten pages each): its RSS growth once all are open. */
async function openStreams(a: Child): Promise<{ growth: number; perStream: number }> {
  const tasks = await Promise.all(Array.from({ length: 100 }, () => submit(a.url)));
  const before = await rss(a);
  const pages = Array.from({ length: STREAMS }, (_, i) => page(a.url, tasks[i % tasks.length] as string, `user${i % 50}`));
  const started = Date.now();
  while (pages.some((p) => p.heard.length === 0) && Date.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 50));
  const open = pages.filter((p) => p.heard.length > 0).length;
  if (open < STREAMS) throw new Error(`only ${open} of ${STREAMS} streams got their first event`);
  const after = await rss(a);
  for (const p of pages) p.close();
  await Promise.all(pages.map((p) => p.done));
  return { growth: after - before, perStream: (after - before) / STREAMS };
}

/** A page's wait through the stream and through polling (an older proxy: its events route a 404): requests from the page. */
async function pageRequests(a: Child): Promise<{ stream: number; polling: number }> {
  const count = async (older: boolean) => {
    let sent = 0;
    const client = new OmniMedia({
      proxyURL: a.url,
      logLevel: 'off',
      fetch: (input, init) => {
        sent++;
        return older && String(input).endsWith('/events') ? Promise.resolve(new Response('{"error":{"code":"not_found"}}', { status: 404 })) : fetch(input, init);
      },
    });
    await client.images.generate({ model: 'omni-image', prompt: 'p' }).wait();
    return sent - 1; // the submission
  };
  const [stream, polling] = await Promise.all([count(false), count(true)]);
  return { stream, polling };
}

/**
 * A page's wait behind an intermediary that cuts every stream after its first event (the
 * proxy resends the current task on each reopen): the page's requests over the task's run, and
 * how many were streams and polls. DESIGN 12: reopens spaced, polling after two reopens that
 * brought nothing new.
 */
async function cutAfterEveryEvent(a: Child): Promise<{ streams: number; polls: number; ms: number }> {
  let streams = 0;
  let polls = 0;
  const client = new OmniMedia({
    proxyURL: a.url,
    logLevel: 'off',
    fetch: async (input, init) => {
      const url = String(input);
      if (!url.endsWith('/events')) {
        if (/\/v1\/tasks\/[^/]+$/.test(url)) polls++;
        return fetch(input, init);
      }
      streams++;
      const response = await fetch(input, init);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!/event: task[^]*\n\n/.test(text)) {
        const step = await reader.read();
        if (step.done) break;
        text += new TextDecoder().decode(step.value);
      }
      void reader.cancel().catch(() => {});
      return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    },
  });
  const started = Date.now();
  await client.images.generate({ model: 'omni-image', prompt: 'p' }).wait();
  return { streams, polls, ms: Date.now() - started };
}

export default async (): Promise<BenchTable> => {
  if (!REDIS_AVAILABLE) return { title: 'Live pages (skipped: no redis-server)', columns: ['measure'], rows: [] };
  const redis = new RedisServer();
  await redis.start();
  const mock = await startMockServer({ durations: DURATIONS });
  const rows: (string | number)[][] = [];
  try {
    let [a, b] = await Promise.all([startChild(mock.url, redis.url, false), startChild(mock.url, redis.url, false)]);
    const hundred = await hundredPages(mock, a!, b!);
    rows.push([`${PAGES} pages on one task through 2 proxy processes on one Redis: upstream task queries`, `${hundred.queries}`, `one waiter's: ${hundred.waiter} (target: equal, ± 1)`]);
    const memory = await openStreams(a!);
    rows.push([`${STREAMS.toLocaleString('en-US')} open streams on one proxy process: RSS growth`, `${(memory.growth / MiB).toFixed(1)} MiB`, `${(memory.perStream / 1024).toFixed(1)} KiB a stream (target: <= 64 MiB)`]);
    const requests = await pageRequests(a!);
    rows.push([`a page's wait through a stream vs through polling: requests from the page (a ${(DURATIONS.pending + DURATIONS.image) / 1000} s task)`, `${requests.stream}`, `polling: ${requests.polling} (target: 1 vs the poll count)`]);
    const cut = await cutAfterEveryEvent(a!);
    const perMinute = ((cut.streams + cut.polls) * 60_000) / cut.ms;
    rows.push([`a page's wait whose every stream is cut after its first event: requests a minute`, `${Math.round(perMinute)}`, `${cut.streams} streams, then ${cut.polls} polls in ${(cut.ms / 1000).toFixed(1)} s (target: bounded: streams <= 3, then polling)`]);
    await Promise.all([stopChild(a!), stopChild(b!)]);

    [a, b] = await Promise.all([startChild(mock.url, redis.url, true), startChild(mock.url, redis.url, true)]);
    const called = await callbackLag(mock, a!, b!);
    const worst = Math.max(...called.queries);
    rows.push([`the same with callbacks (${CALLBACK_TASKS} tasks, 6 pages each on 2 instances): task queries after the submission`, `${Math.min(...called.queries)}-${worst}`, 'target: at most one read when the first stream opens, then only the callback\u2019s verifying read (2)']);
    const sorted = called.lags.filter(Number.isFinite).sort((x, y) => x - y);
    rows.push([`callback answered on instance A -> completed seen by a page on instance B (${sorted.length} pages)`, `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`, 'target: p99 <= 100 ms']);
    await Promise.all([stopChild(a!), stopChild(b!)]);
  } finally {
    await mock.close();
    await redis.stop();
  }
  return {
    title: 'Live pages: task events through omnimedia/proxy (2 proxy processes, one redis-server, the mock service; one machine)',
    columns: ['measure', 'measured', 'for scale / target'],
    rows,
    notes: [
      `Tasks: ${DURATIONS.pending / 1000} s pending, then ${DURATIONS.image / 1000} s. The lag is from the callback handler's verifying read (the mock's clock) to the page's event (this process's clock: the same machine).`,
    ],
  };
};
