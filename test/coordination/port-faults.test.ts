// Every port, under faults drawn by fast-check: a store (or hook) whose every method may hang,
// throw synchronously, reject, hand back an odd thenable (whose `then` throws, calls back twice,
// or never), answer junk, or work. Whatever it does, the public call that goes through it ends
// within its deadline (or at its abort), with a result or an OmniMediaError (never a raw error),
// and a billed task's id is never lost. Fake time: a port's 2 s bound costs nothing; the service
// is answered in-process (the client's `fetch`), so no real I/O runs beside fake time.
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia, OmniMediaError, parseCallback, type TaskResult } from 'omnimedia';
import type { Coordination, UploadCacheStore } from 'omnimedia/coordination';
import {
  MemoryDedupeStore,
  MemoryDurationsStore,
  MemoryJournal,
  MemoryPollBudget,
  MemoryRateLimits,
  MemoryTaskEvents,
  MemoryUploadCacheStore,
} from '../../src/coordination/memory.ts';
import { createProxy } from 'omnimedia/proxy';
import { holdFakeTime, runInFakeTime } from '../helpers/clock.ts';
import { fixture } from '../helpers/fixtures.ts';

const FAULTS = ['ok', 'hang', 'throw', 'reject', 'thenable-throws', 'thenable-twice', 'thenable-never', 'junk'] as const;
type Fault = (typeof FAULTS)[number];
const fault = fc.constantFrom(...FAULTS);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);

/** What a port method does under `how`; `good` is what a working store would answer. */
function act(how: Fault, good: () => unknown): unknown {
  switch (how) {
    case 'ok':
      return good();
    case 'hang':
      return new Promise(() => {});
    case 'throw':
      throw new Error('port broke (synchronously)');
    case 'reject':
      return Promise.reject(new Error('port broke'));
    case 'thenable-throws':
      return {
        then() {
          throw new Error('odd thenable');
        },
      };
    case 'thenable-twice':
      return {
        then(resolve: (value: unknown) => void, reject: (error: unknown) => void) {
          resolve(good());
          reject(new Error('and then a rejection'));
          resolve('junk');
        },
      };
    case 'thenable-never':
      return { then() {} };
    case 'junk':
      return { junk: Symbol('junk') };
  }
}

/** `target`'s methods, each misbehaving as `faults` says (by method name; `ok` when not named). */
function faulty<T extends object>(target: T, faults: Record<string, Fault>): T {
  return new Proxy(target, {
    get(object, name, receiver) {
      const value = Reflect.get(object, name, receiver) as unknown;
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return (...args: unknown[]) => act(faults[name] ?? 'ok', () => Reflect.apply(value, object, args));
    },
  });
}

const faultsOf = (...methods: string[]) => fc.record(Object.fromEntries(methods.map((m) => [m, fault])) as Record<string, fc.Arbitrary<Fault>>);

const SUBMITTED = { task_id: 't_1', status: 'pending', model: 'm', created_at: 1_700_000_000 };
const COMPLETED: TaskResult = { task_id: 't_1', status: 'completed', data: [{ url: 'https://files.test/1.png' }] } as TaskResult;
const RECORD = { url: 'https://files.test/up.png', expires_at: Math.floor(Date.UTC(2100, 0) / 1000) };

/** The service, in process: a submission is accepted as t_1, t_1 is completed, an upload gives RECORD. */
const service = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  if (method === 'POST' && url.pathname.startsWith('/v1/uploads/')) return Response.json(RECORD);
  if (method === 'POST') return Response.json(SUBMITTED);
  if (url.pathname === '/v1/tasks/t_1') return Response.json(COMPLETED);
  return Response.json({ error: { message: 'not found' } }, { status: 404 });
};

const silent = { error() {}, warn() {}, info() {}, debug() {} };

/** A Coordination of in-memory ports, each wrapped to misbehave as drawn. */
function coordination(faults: Record<string, Record<string, Fault>>): Coordination {
  const journal = new MemoryJournal();
  return {
    dedupe: faulty(new MemoryDedupeStore(), faults.dedupe ?? {}),
    uploads: faulty(new MemoryUploadCacheStore(), faults.uploads ?? {}),
    durations: faulty(new MemoryDurationsStore(), faults.durations ?? {}),
    events: faulty(new MemoryTaskEvents(), faults.events ?? {}),
    journal: faulty(journal, faults.journal ?? {}),
    leases: faulty({ ttlMs: 1_000, hold: async () => true, release: () => {} }, faults.leases ?? {}),
    budget: (max) => faulty(new MemoryPollBudget(max), faults.budget ?? {}),
    rateLimits: faulty(new MemoryRateLimits(), faults.rateLimits ?? {}),
    close: async () => {},
  };
}

/** What a call ended with, within `ms` of fake time (a failure of the test when still pending then). */
async function outcome<T>(call: () => PromiseLike<T>, ms: number): Promise<{ value: T } | { error: unknown }> {
  return runInFakeTime(
    Promise.resolve()
      .then(call)
      .then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    { ms, step: 50 },
  );
}

beforeAll(async () => {
  // The schemas load at the first parse: loaded now, in real time.
  await parseCallback(JSON.stringify(COMPLETED));
});
beforeEach(() => vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] }));
afterEach(() => vi.useRealTimers());

describe('every port under faults: a result or an OmniMediaError, within the deadline, the task id kept', () => {
  it('the journal, events, leases, durations and budget of a Coordination: a submission resolves with its task id, its wait with the task', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          journal: faultsOf('record', 'adopt', 'release', 'clear', 'find'),
          events: faultsOf('publish', 'subscribe', 'latest'),
          leases: faultsOf('hold', 'release'),
          durations: faultsOf('get', 'add'),
          budget: faultsOf('take'),
        }),
        async (faults) => {
          const client = new OmniMedia({ apiKey: 'sk-faults-0123456789', baseURL: 'https://api.test', fetch: service, logger: silent, coordination: coordination(faults) });
          const submitted = client.images.generate({ model: 'm', prompt: 'p' }, { timeout: 5_000 });
          // The service accepted it: the caller gets its id, within the call's time, whatever the journal does.
          expect(await outcome(() => submitted, 5_000)).toEqual({ value: expect.objectContaining({ task_id: 't_1' }) });
          const waited = await outcome(() => submitted.wait({ timeout: 30_000, initialDelay: 0 }), 31_000);
          if ('error' in waited) {
            expect(waited.error).toBeInstanceOf(OmniMediaError);
            expect((waited.error as OmniMediaError).taskId).toBe('t_1');
          } else expect(waited.value).toMatchObject({ task_id: 't_1', status: 'completed' });
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('an abort ends a submission held by the journal, or a wait held by the shared state, at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ journal: faultsOf('record', 'adopt', 'find'), events: faultsOf('latest', 'subscribe'), leases: faultsOf('hold'), budget: faultsOf('take') }), async (faults) => {
        const client = new OmniMedia({ apiKey: 'sk-faults-0123456789', baseURL: 'https://api.test', fetch: service, logger: silent, coordination: coordination(faults) });
        const submit = new AbortController();
        const submitted = client.images.generate({ model: 'm', prompt: 'p' }, { signal: submit.signal });
        setTimeout(() => submit.abort(new Error('caller left')), 100);
        const first = await outcome(() => submitted, 500);
        // Accepted before the abort: the id is not lost to it.
        expect(first).toEqual({ value: expect.objectContaining({ task_id: 't_1' }) });
        const wait = new AbortController();
        setTimeout(() => wait.abort(new Error('caller left')), 50);
        const waited = await outcome(() => client.tasks.wait('t_1', { signal: wait.signal }), 500);
        if ('error' in waited) expect(waited.error).toMatchObject({ message: 'caller left' });
        else expect(waited.value).toMatchObject({ status: 'completed' });
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('the upload cache’s store: an upload gives its record within the call’s timeout, or the caller’s abort', async () => {
    // Hashing the bytes (Blob reads and WebCrypto, off the main thread) is real work: fake time
    // holds still while it runs, so the bound below is the call's, not this machine's speed
    // (it was 1,500 real ms).
    const held = <A extends unknown[], R>(work: (...args: A) => Promise<R>) =>
      async function (this: unknown, ...args: A): Promise<R> {
        const release = holdFakeTime();
        try {
          return await work.apply(this, args);
        } finally {
          release();
        }
      };
    const arrayBuffer = Blob.prototype.arrayBuffer;
    const digest = crypto.subtle.digest;
    vi.spyOn(Blob.prototype, 'arrayBuffer').mockImplementation(held(arrayBuffer));
    vi.spyOn(crypto.subtle, 'digest').mockImplementation(held(digest.bind(crypto.subtle)) as typeof digest);
    const png = fixture('tiny.png');
    try {
      await fc.assert(
        fc.asyncProperty(faultsOf('get', 'set', 'delete'), fc.boolean(), async (faults, aborted) => {
          const store: UploadCacheStore = faulty(new MemoryUploadCacheStore(), faults);
          const client = new OmniMedia({ apiKey: 'sk-faults-0123456789', baseURL: 'https://api.test', fetch: service, logger: silent, uploadCache: { store } });
          const controller = new AbortController();
          if (aborted) setTimeout(() => controller.abort(new Error('caller left')), 50);
          for (let i = 0; i < 2; i++) {
            // The store is bounded by the call's timeout (200 ms); the service answers in process, in no time.
            const uploaded = await outcome(() => client.uploads.image(png.bytes, { timeout: 200, signal: controller.signal }), 200);
            if ('error' in uploaded) expect(uploaded.error).toMatchObject({ message: 'caller left' });
            else expect(uploaded.value).toEqual(RECORD);
          }
        }),
        { numRuns: Math.min(RUNS, 25) },
      );
    } finally {
      vi.restoreAllMocks();
    }
  }, 120_000);

  it('the callback dedupe store and the journal: a handler answers every delivery within a bounded time, and never throws', async () => {
    await fc.assert(
      fc.asyncProperty(faultsOf('claim', 'release', 'complete'), faultsOf('find', 'clear'), fc.boolean(), async (dedupe, journal, throws) => {
        const coordinated = coordination({ dedupe, journal });
        const client = new OmniMedia({ baseURL: 'https://api.test', fetch: service, logger: silent, coordination: coordinated });
        await runInFakeTime(Promise.resolve(client.journal.record({ task_id: 't_1', kind: 'image_generation', submitted_at: Date.now() })).catch(() => {}), { ms: 3_000 });
        const handle = client.callbacks.handler(() => {
          if (throws) throw new Error('app failed');
        });
        for (let i = 0; i < 2; i++) {
          const answered = await outcome(() => handle(new Request('https://me.test/hook', { method: 'POST', body: JSON.stringify(COMPLETED) })), 10_000);
          expect(answered).toEqual({ value: expect.any(Response) });
          const { status } = (answered as { value: Response }).value;
          expect([200, 403, 500, 503]).toContain(status);
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('tasks.pending(): the entries, or an OmniMediaError, within 30 s', async () => {
    await fc.assert(
      fc.asyncProperty(faultsOf('pending'), async (faults) => {
        const client = new OmniMedia({ baseURL: 'https://api.test', fetch: service, logger: silent, coordination: coordination({ journal: faults }) });
        const listed = await outcome(() => client.tasks.pending(), 31_000);
        if ('error' in listed) expect(listed.error).toBeInstanceOf(OmniMediaError);
        else expect(listed.value).toBeInstanceOf(Array);
      }),
      { numRuns: Math.min(RUNS, 16) },
    );
  }, 120_000);

  it('the proxy’s hooks and rate-limit store: every request gets an answer within timeout; an accepted submission’s task id reaches the page whatever onSubmitted does', async () => {
    const hooks = fc.record({ authorize: fault, policy: fault, onSubmitted: fault, take: fault });
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(hooks, async (how) => {
        const proxy = createProxy({
          apiKey: 'sk-faults-0123456789',
          baseURL: 'https://api.test',
          fetch: service,
          logger: silent,
          timeout: 1_000,
          authorize: () => act(how.authorize, () => ({ id: 'alice' })) as never,
          policy: () => act(how.policy, () => true) as never,
          onSubmitted: () => act(how.onSubmitted, () => undefined) as never,
          rateLimit: { submissions: { limit: 100, windowMs: 60_000 } },
          coordination: { rateLimits: faulty(new MemoryRateLimits(), { take: how.take }) } as never,
        } as never);
        const request = new Request('https://app.test/v1/images/generations', { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://app.test', host: 'app.test' }, body: '{"model":"m","prompt":"p"}' });
        const answered = await outcome(() => proxy.handler(request), 6_500);
        expect(answered).toEqual({ value: expect.any(Response) });
        const response = (answered as { value: Response }).value;
        statuses.add(response.status);
        if (response.status === 200) expect(await response.json()).toMatchObject({ task_id: 't_1' });
        else expect([403, 500, 503]).toContain(response.status);
      }),
      { numRuns: RUNS, examples: [[{ authorize: 'ok', policy: 'ok', onSubmitted: 'hang', take: 'ok' }]] },
    );
    expect(statuses).toContain(200); // the property saw accepted submissions, not only refusals
  }, 120_000);
});
