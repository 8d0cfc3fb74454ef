// The upload cache's shared in-flight upload belongs to no caller: it runs under its own
// controller, cancelled only when every caller has gone; each caller's signal ends that
// caller's wait at once; a store that fails costs a warning, never an upload that succeeded.
import { describe, expect, it, vi } from 'vitest';
import { OmniMedia, type Logger } from '../../src/index.ts';
import type { UploadCacheStore } from '../../src/coordination/index.ts';
import { fixture } from '../helpers/fixtures.ts';

const png = fixture('tiny.png');
const RECORD = { url: 'https://files.test/1.png', expires_at: Math.floor(Date.now() / 1000) + 86_400 };

/** A client whose upload endpoint answers only when `finish()` is called; its requests' signals are kept. */
function slowUploads(store?: UploadCacheStore) {
  const signals: AbortSignal[] = [];
  let finish!: () => void;
  const answered = new Promise<void>((resolve) => (finish = resolve));
  const warnings: string[] = [];
  const logger: Logger = { error() {}, info() {}, debug() {}, warn: (message: string) => void warnings.push(message) };
  const client = new OmniMedia({
    apiKey: 'sk-cache-0123456789abcdef',
    baseURL: 'https://api.test',
    logger,
    uploadCache: store ? { store } : true,
    fetch: async (_input, init) => {
      const signal = init?.signal as AbortSignal;
      signals.push(signal);
      await Promise.race([answered, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))]);
      return Response.json(RECORD);
    },
  });
  vi.spyOn(client.uploadCache!, 'getOrUpload');
  return { client, signals, finish, warnings };
}

const settled = <T>(promise: Promise<T>) => promise.then((value) => ({ value }), (error: unknown) => ({ error }));
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Until `callers` uploads reached the cache (each hashes its bytes first) and the one request went out. */
async function joined(client: OmniMedia, signals: AbortSignal[], callers: number): Promise<void> {
  const calls = vi.mocked(client.uploadCache!.getOrUpload).mock.calls;
  await expect.poll(() => calls.length === callers && signals.length === 1).toBe(true);
  await tick();
}

describe('three concurrent uploads of the same bytes, with different signals', () => {
  it('A aborts: A rejects at once with its reason; B (no signal) and C get the record of the one upload', async () => {
    const { client, signals, finish } = slowUploads();
    const a = new AbortController();
    const c = new AbortController();
    const uploads = [client.uploads.image(png.bytes, { signal: a.signal }), client.uploads.image(png.bytes), client.uploads.image(png.bytes, { signal: c.signal })];
    const outcomes = uploads.map(settled);
    await joined(client, signals, 3); // one request for the three
    a.abort(new Error('A left'));
    expect(await outcomes[0]).toEqual({ error: new Error('A left') }); // at once: the upload still runs
    expect(signals[0]?.aborted).toBe(false); // was: the shared upload ran under A's signal
    finish();
    expect(await outcomes[1]).toEqual({ value: RECORD }); // was: A's reason
    expect(await outcomes[2]).toEqual({ value: RECORD });
  });

  it('the upload is cancelled when every caller has gone, and not before', async () => {
    const { client, signals } = slowUploads();
    const callers = [new AbortController(), new AbortController(), new AbortController()];
    const outcomes = callers.map((caller) => settled(client.uploads.image(png.bytes, { signal: caller.signal })));
    await joined(client, signals, 3);
    callers[0]?.abort(new Error('first'));
    callers[1]?.abort(new Error('second'));
    await tick();
    expect(signals[0]?.aborted).toBe(false);
    callers[2]?.abort(new Error('third'));
    await expect.poll(() => signals[0]?.aborted).toBe(true);
    expect(await Promise.all(outcomes)).toEqual([{ error: new Error('first') }, { error: new Error('second') }, { error: new Error('third') }]);
    // A later upload of the same bytes starts afresh.
    expect(client.uploads.image(png.bytes)).toBeInstanceOf(Promise);
  });

  it('a store whose get and set throw: the uploads succeed, with one warning (was a raw Error, then a warning per call)', async () => {
    const store: UploadCacheStore = {
      get: () => Promise.reject(new Error('store down (get)')),
      set: () => {
        throw new Error('store down (set)');
      },
      delete: () => {},
    };
    const { client, signals, finish, warnings } = slowUploads(store);
    const outcomes = [client.uploads.image(png.bytes), client.uploads.image(png.bytes), client.uploads.image(png.bytes)].map(settled);
    await joined(client, signals, 3);
    finish();
    expect(await Promise.all(outcomes)).toEqual([{ value: RECORD }, { value: RECORD }, { value: RECORD }]);
    expect(warnings).toEqual([expect.stringMatching(/upload cache’s store failed \(store down \(get\)\): going on without it/)]);
  });
});

describe('a store that never answers (a Redis-backed store while Redis is unreachable)', () => {
  const never = <T>() => new Promise<T>(() => {});
  const hung: UploadCacheStore = { get: () => never(), set: () => never(), delete: () => never() };
  const quick = (logger: Logger) =>
    new OmniMedia({ apiKey: 'sk-cache-0123456789abcdef', baseURL: 'https://api.test', logger, uploadCache: { store: hung }, fetch: async () => Response.json(RECORD) });

  // Fake time, moved only from one timer to the next: "at once" is exact, whatever the machine
  // (these were stopwatches: under 900 and 1,500 ms of real time).
  const inFakeTime = async <T>(run: () => Promise<T>) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const started = Date.now();
      const outcome = settled(run());
      let done = false;
      void outcome.then(() => (done = true));
      while (!done) {
        await tick(); // hashing and the in-process service are real work
        if (!done && vi.getTimerCount() > 0) await vi.advanceTimersToNextTimerAsync();
      }
      return { ...(await outcome), ms: Date.now() - started };
    } finally {
      vi.useRealTimers();
    }
  };

  it('the caller’s abort ends the upload at once (was: still pending after 5 s)', async () => {
    const client = quick({ error() {}, info() {}, debug() {}, warn() {} });
    const controller = new AbortController();
    const outcome = await inFakeTime(() => {
      setTimeout(() => controller.abort(new DOMException('the caller’s 300 ms', 'TimeoutError')), 300);
      return client.uploads.image(png.bytes, { signal: controller.signal, timeout: 1000 });
    });
    expect(outcome).toMatchObject({ error: { name: 'TimeoutError' } });
    expect(outcome.ms).toBe(300);
  });

  it('without a signal, the call’s timeout bounds the store: the upload goes on without the cache, with one warning', async () => {
    const warnings: string[] = [];
    const client = quick({ error() {}, info() {}, debug() {}, warn: (message: string) => void warnings.push(message) });
    const outcome = await inFakeTime(async () => [await client.uploads.image(png.bytes, { timeout: 200 }), await client.uploads.image(png.bytes, { timeout: 200 })]);
    expect(outcome).toMatchObject({ value: [RECORD, RECORD] });
    // Each call waits on the store for its 200 ms at most.
    expect(outcome.ms).toBeLessThanOrEqual(400);
    expect(warnings.filter((w) => w.includes('upload cache'))).toHaveLength(1);
  });
});
